//! Builds the conformance fixtures under `fixtures/`.
//!
//! Every fixture is built here from readable parts, so a reviewer reads this file
//! rather than base64. Invalid fixtures get a sidecar `NAME.expect.json` naming the
//! error codes a validator must report. The output is deterministic; the conformance
//! test checks that the committed files are exactly what this module writes, and
//! `SMG_BLESS=1 cargo test -p smg-format --test it conformance::` rewrites them.

use std::path::Path;

use serde_json::{json, Value};
use smg_format::{
    archive::encode_turns, envelope, model::Turn, vault::content_hash, Encoding, WriteOptions,
};

fn turn(n: u64, minute: u32, role: &str, content: &str) -> Turn {
    Turn {
        timestamp: Some(
            smg_format::model::Timestamp::new(format!("2025-12-04T10:{minute:02}:00Z")).unwrap(),
        ),
        conversation_id: Some("conv_1".into()),
        session_id: Some("s1".into()),
        message_id: Some(format!("msg_{n}").into()),
        ..Turn::new(
            smg_format::model::Ordinal::new(n).unwrap(),
            smg_format::model::NonEmpty::new(role).unwrap(),
            content,
        )
    }
}

fn turns() -> Vec<Turn> {
    vec![
        turn(1, 30, "user", "Let's build the checkout with Stripe."),
        turn(2, 31, "assistant", "Option A is Stripe Checkout, option B is Elements. We'll go with Elements because the brand needs custom styling."),
        turn(3, 32, "user", "Here is the webhook:\n```js\nconst stripe = require('stripe');\n```"),
        turn(4, 33, "assistant", "Use the raw body for signature checks.\r\nTabs\tand ünïcödé survive byte for byte."),
        turn(5, 44, "user", "The Stripe webhook is failing with 401 error"),
        turn(6, 45, "assistant", "Check STRIPE_WEBHOOK_SECRET matches the endpoint's signing secret."),
    ]
}

const V1: &str =
    "const stripe = require('stripe');\n\nexport async function handler(req) {\n  return 200;\n}\n";
const V2: &str = "const stripe = require('stripe');\n\nexport async function handler(req) {\n  const sig = req.headers['stripe-signature'];\n  return 200;\n}\n";
const V3: &str = "const stripe = require('stripe');\nconst secret = process.env.STRIPE_WEBHOOK_SECRET;\n\nexport async function handler(req) {\n  const sig = req.headers['stripe-signature'];\n  stripe.webhooks.constructEvent(req.rawBody, sig, secret);\n  return 200;\n}\n";
const DOC: &str = "# Checkout\n\nPayments go through Stripe Elements.\n";

fn unified(a: &str, b: &str) -> String {
    smg_format::vault::unified_diff(a, b, "stripe-webhook-handler.js")
}

fn block(id: u64, range: &str, turns: &[Turn], summary: &str) -> Value {
    json!({
        "id": id, "turnRange": range, "summary": summary,
        "keyPoints": ["Chose Stripe Elements"],
        "compressedData": encode_turns(turns, 9).expect("turns encode"),
    })
}

fn entity_id(name: &str) -> String {
    content_hash(&name.trim().to_lowercase())
        .trim_start_matches("sha256:")
        .to_string()
}

/// A document that uses every section and field of v1.
fn full() -> Value {
    let t = turns();
    json!({
        "@context": "https://w3id.org/smg/v1",
        "@type": "SemanticMemoryGraph",
        "version": "1.0",
        "metadata": {
            "id": "0b7c6f2e-3d7c-4a5e-9a53-6c1f1d2b9e10", "created": "2025-12-04T10:30:00Z",
            "modified": "2025-12-04T14:45:00Z", "projectId": "website-builder-2025",
            "projectName": "Website builder", "projectDescription": "React e-commerce site",
            "totalExchanges": 6, "compressionRatio": 0.42, "tags": ["stripe", "react"]
        },
        "workingMemory": {
            "summary": "Building a React e-commerce site; fixing the Stripe webhook's 401.",
            "currentGoals": ["Fix payment validation bug", "Test error handling"],
            "activeArtifacts": ["art_001"],
            "recentContext": [
                serde_json::to_value(&t[4]).unwrap(),
                serde_json::to_value(&t[5]).unwrap()
            ]
        },
        "semanticGraph": {
            "nodes": [
                {"id": "n_stripe", "type": "concept", "label": "Stripe Integration", "description": "Payment processing using the Stripe API",
                 "confidence": 0.98, "importance": 0.7, "firstMentioned": 1, "lastMentioned": 5, "relatedNodes": ["n_elements"],
                 "keywords": ["stripe", "payments"], "provenance": [{"conversationId": "conv_1", "sessionId": "s1", "messageIds": ["msg_1", "msg_5"], "turns": [1, 5], "timestamp": "2025-12-04T10:30:00Z"}]},
                {"id": "n_elements", "type": "decision", "label": "Use Stripe Checkout vs Elements", "outcome": "Chose Elements for customization",
                 "rationale": "Need custom styling to match brand", "timestamp": "2025-12-04T10:31:00Z", "importance": 0.85, "confidence": 0.9,
                 "provenance": [{"conversationId": "conv_1", "messageIds": ["msg_2"], "turns": [2]}]},
                {"id": "n_webhook", "type": "artifact", "label": "stripe-webhook-handler.js", "artifactRef": "art_001", "version": 3},
                {"id": "n_401", "type": "problem", "label": "Webhook fails with 401", "timestamp": "2025-12-04T10:44:00Z"},
                {"id": "n_secret", "type": "solution", "label": "Match the webhook signing secret"},
                {"id": entity_id("Stripe"), "type": "entity", "label": "Stripe"},
                {"id": "n_pref", "type": "memory", "memoryType": "preference", "content": "User prefers concise answers", "scope": "personal", "owner": "user_a", "confidence": 0.8},
                {"id": "n_seg", "type": "segment", "content": "Use the raw body for signature checks.", "keywords": ["rawBody", "signature"], "metadata": {"segment type": "explanation", "wordCount": 7}},
                {"id": "n_dept_v1", "type": "memory", "label": "How to rotate webhook secrets (v1)", "scope": "departmental", "department": "payments",
                 "knowledgeType": "how_to", "confidence": 0.86, "approvedBy": "payments_head", "createdBy": "maestro", "effectiveDate": "2025-01-01"},
                {"id": "n_dept_v2", "type": "memory", "label": "How to rotate webhook secrets", "scope": "departmental", "department": "payments",
                 "knowledgeType": "how_to", "confidence": 0.92, "approvedBy": "payments_head", "createdBy": "maestro", "effectiveDate": "2025-11-15"},
                {"id": "n_global", "type": "memory", "label": "Q4 budget submission deadline", "scope": "global", "knowledgeType": "milestone",
                 "confidence": 0.95, "approvedBy": "cfo", "effectiveDate": "2025-11-01", "expiryDate": "2025-12-31", "tags": ["budget", "Q4"]},
                {"id": "n_restricted", "type": "memory", "label": "Payment provider contract renegotiation", "scope": "restricted", "confidence": 0.7},
                {"id": "n_old", "type": "concept", "label": "PayPal fallback", "tier": "ARCHIVE", "accessCount": 1, "lastAccessed": "2025-06-01T00:00:00Z",
                 "created": "2025-05-01T00:00:00Z", "updated": "2025-06-01T00:00:00Z", "tombstone": true, "deletedAt": "2025-12-01T00:00:00Z"}
            ],
            "edges": [
                {"from": "n_stripe", "to": "n_elements", "relation": "requires_decision"},
                {"from": "n_elements", "to": "n_webhook", "relation": "resulted_in", "strength": 0.9, "timestamp": "2025-12-04T10:32:00Z"},
                {"from": "n_secret", "to": "n_401", "relation": "implements", "provenance": [{"conversationId": "conv_1", "turns": [6]}]},
                {"from": "n_seg", "to": entity_id("Stripe"), "relation": "mentions"},
                {"from": "n_dept_v2", "to": "n_dept_v1", "relation": "supersedes"},
                {"from": "n_stripe", "to": "n_401", "relation": "related_to", "strength": 0.67}
            ]
        },
        "artifactVault": {"artifacts": {
            "art_001": {"type": "code", "language": "javascript", "filename": "stripe-webhook-handler.js", "hash": content_hash(V3),
                "versions": [
                    {"v": 1, "timestamp": "2025-12-04T10:32:00Z", "content": V1, "hash": content_hash(V1)},
                    {"v": 2, "timestamp": "2025-12-04T10:40:00Z", "delta": unified(V1, V2), "hash": content_hash(V2)},
                    {"v": 3, "timestamp": "2025-12-04T10:46:00Z", "delta": unified(V2, V3)}
                ]},
            "art_002": {"type": "document", "filename": "CHECKOUT.md", "hash": content_hash(DOC), "versions": [{"v": 1, "content": DOC}]}
        }},
        "deepArchive": {
            "compressionMethod": "brotli",
            "blocks": [block(1, "1-4", &t[..4], "Stack decisions"), block(2, "5-6", &t[4..], "Webhook 401")],
            "vectorIndex": {"enabled": true, "model": "all-MiniLM-L6-v2", "dimensions": 4, "embeddings": [
                {"turn": 1, "vector": [0.12, -0.5, 0.33, 0.0]},
                {"nodeId": "n_stripe", "vector": [1, 0, -1, 1]}
            ]}
        },
        "collaborators": [{"id": "user_a", "role": "developer", "name": "Ada"}, {"id": "user_b", "role": "designer"}],
        "sharedGraph": {
            "nodes": [{"id": "n_brand", "type": "concept", "label": "Brand colours"}],
            "edges": [{"from": "n_brand", "to": "n_elements", "relation": "related_to"}]
        },
        "privateContexts": {
            "user_a": {"notes": ["Ask about webhook retries"], "graph": {
                "nodes": [{"id": "n_a_todo", "type": "memory", "memoryType": "project", "content": "Add idempotency keys", "owner": "user_a"}],
                "edges": [{"from": "n_a_todo", "to": "n_webhook", "relation": "references"}]}},
            "user_b": {"notes": ["Button states need a loading spinner"]}
        }
    })
}

/// Exactly the shape of the seed's Appendix A, inline `@context` included.
fn seed_appendix_a() -> Value {
    let t = turns();
    json!({
        "@context": {
            "@vocab": "https://schema.org/smg/v1#",
            "concept": "https://schema.org/Thing",
            "decision": "https://schema.org/Action",
            "artifact": "https://schema.org/CreativeWork"
        },
        "@type": "SemanticMemoryGraph",
        "version": "1.0",
        "metadata": {
            "id": "5f0c2a7e-0d7b-4f0e-8d0a-1c2b3d4e5f60", "created": "2025-12-04T10:30:00Z", "modified": "2025-12-04T14:45:00Z",
            "projectName": "website-builder", "projectDescription": "React e-commerce site with Stripe",
            "totalExchanges": 6, "compressionRatio": 0.08, "tags": ["react", "stripe"]
        },
        "workingMemory": {
            "summary": "Building a React e-commerce site. Currently implementing checkout flow with Stripe integration.",
            "currentGoals": ["Fix payment validation bug", "Add loading states to buttons", "Test error handling"],
            "activeArtifacts": ["art_005"],
            "recentContext": [{"turn": 5, "timestamp": "2025-12-04T10:44:00Z", "role": "user", "content": "The Stripe webhook is failing with 401 error", "importance": 0.95}]
        },
        "semanticGraph": {
            "nodes": [
                {"id": "node_001", "type": "concept", "label": "Stripe Integration", "description": "Payment processing using Stripe API",
                 "confidence": 0.98, "importance": 0.9, "firstMentioned": 1, "lastMentioned": 5, "metadata": {"source": "chat"}},
                {"id": "node_012", "type": "decision", "label": "Use Stripe Checkout vs Elements", "description": "Chose Elements for customization",
                 "confidence": 0.9, "importance": 0.85, "firstMentioned": 2, "lastMentioned": 2, "metadata": {}}
            ],
            "edges": [{"from": "node_001", "to": "node_012", "relation": "requires", "strength": 0.8}]
        },
        "artifactVault": {"artifacts": {"art_005": {
            "type": "code", "language": "javascript", "filename": "stripe-webhook-handler.js", "hash": content_hash(V2),
            "versions": [
                {"v": 1, "timestamp": "2025-12-04T10:32:00Z", "delta": null, "content": V1},
                {"v": 2, "timestamp": "2025-12-04T10:40:00Z", "delta": unified(V1, V2), "content": null}
            ]
        }}},
        "deepArchive": {
            "compressionMethod": "brotli",
            "blocks": [{"id": 1, "turnRange": "1-6", "summary": "Initial project setup and tech stack decisions",
                        "keyPoints": ["Chose React + Next.js", "Chose Stripe Elements"], "compressedData": encode_turns(&t, 11).unwrap()}],
            "vectorIndex": {"enabled": false, "model": null, "embeddings": []}
        }
    })
}

/// Add an unknown field to every object level, and mark the file as from v1.3.
fn with_unknown_fields() -> Value {
    let mut d = full();
    d["version"] = json!("1.3");
    d["x-future"] = json!({"nested": [1, {"deep": true}], "n": 12345678901234u64});
    for ptr in [
        "/metadata",
        "/workingMemory",
        "/workingMemory/recentContext/0",
        "/semanticGraph",
        "/semanticGraph/nodes/0",
        "/semanticGraph/nodes/0/provenance/0",
        "/semanticGraph/edges/0",
        "/artifactVault",
        "/artifactVault/artifacts/art_001",
        "/artifactVault/artifacts/art_001/versions/1",
        "/deepArchive",
        "/deepArchive/blocks/0",
        "/deepArchive/vectorIndex",
        "/deepArchive/vectorIndex/embeddings/0",
        "/collaborators/0",
        "/privateContexts/user_a",
        "/sharedGraph",
    ] {
        d.pointer_mut(ptr).expect(ptr)["futureField"] =
            json!({"addedIn": "1.3", "values": [0.5, "x", null]});
    }
    d
}

fn archive_with(method: &str, encode: fn(&[u8]) -> Vec<u8>) -> Value {
    use base64::Engine;
    let mut d = full();
    d["deepArchive"]["compressionMethod"] = json!(method);
    let t = turns();
    for (i, range) in [(0usize, 0..4), (1, 4..6)] {
        let json =
            smg_format::codec::to_canonical_json_value(&serde_json::to_value(&t[range]).unwrap());
        d["deepArchive"]["blocks"][i]["compressedData"] =
            json!(base64::engine::general_purpose::STANDARD.encode(encode(&json)));
    }
    d
}

fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::best());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).unwrap();
    out.push(b'\n');
    out
}

fn canonical(v: &Value) -> Vec<u8> {
    smg_format::codec::to_canonical_json_value(v)
}

fn enveloped(v: &Value, enc: Encoding) -> Vec<u8> {
    envelope::encode(&canonical(v), &WriteOptions::new(enc)).unwrap()
}

/// The full document with the restricted tier sealed (passphrase `restricted`) and
/// user_a's private context sealed (passphrase `user a`).
fn sealed() -> smg_format::Document {
    let mut doc = smg_format::codec::from_json_slice(&canonical(&full())).unwrap();
    let n = smg_format::crypto::MIN_ITERATIONS;
    let tier = smg_format::seal::SealTarget::Tier(smg_format::model::Scope::Restricted);
    smg_format::seal::seal_with(&mut doc, tier, b"restricted", n, &[1; 16], &[2; 12]).unwrap();
    let user = smg_format::seal::SealTarget::Collaborator("user_a");
    smg_format::seal::seal_with(&mut doc, user, b"user a", n, &[3; 16], &[4; 12]).unwrap();
    doc
}

/// A public and a restricted conversation in one file (spec §10.3), the restricted
/// tier sealed: its block, its node, the edge to it and its conversation entry are in
/// the section; its turn numbers stay taken.
fn sealed_conversation() -> smg_format::Document {
    use smg_format::model::{Edge, Node, Provenance, Scope};
    let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static(
        "2025-12-04T10:30:00Z",
    ));
    let mut turns = vec![
        turn(1, 30, "user", "We ship the public beta on Friday."),
        turn(
            2,
            31,
            "assistant",
            "Noted: the public beta ships on Friday.",
        ),
        turn(
            3,
            32,
            "user",
            "Board only: we decided to acquire Northwind in March.",
        ),
        turn(
            4,
            33,
            "assistant",
            "Understood, the Northwind acquisition closes in March.",
        ),
    ];
    for t in &mut turns[2..] {
        t.scope = Some(Scope::Restricted);
        t.conversation_id = Some("board".into());
    }
    let options = smg_format::archive::ArchiveOptions::default();
    smg_format::archive::append_turns(&mut doc, &turns, &options).unwrap();
    let archive = doc.deep_archive.as_mut().unwrap();
    archive.extra.insert(
        "conversations".into(),
        json!({"board": {"format": "jsonl", "order": 1, "scope": "restricted"},
               "conv_1": {"format": "jsonl", "order": 0}}),
    );
    let decision = |id: &str, t: &Turn, text: &str, scope| Node {
        label: Some(text.into()),
        scope,
        provenance: Some(vec![Provenance {
            conversation_id: t.conversation_id.clone(),
            message_ids: t.message_id.clone().map(|m| vec![m]),
            turns: Some(vec![smg_format::model::Ordinal::new(t.turn.get()).unwrap()]),
            ..Provenance::default()
        }]),
        ..Node::new(
            smg_format::model::NonEmpty::new(id).unwrap(),
            smg_format::model::NonEmpty::from_static("decision"),
        )
    };
    let graph = doc.semantic_graph.get_or_insert_with(Default::default);
    graph.nodes = Some(vec![
        decision("d_beta", &turns[0], "ship the public beta on Friday", None),
        decision(
            "d_acquire",
            &turns[2],
            "acquire Northwind",
            Some(Scope::Restricted),
        ),
    ]);
    graph.edges = Some(vec![Edge::new(
        smg_format::model::NonEmpty::from_static("d_acquire"),
        smg_format::model::NonEmpty::from_static("related_to"),
        smg_format::model::NonEmpty::from_static("d_beta"),
    )]);
    let n = smg_format::crypto::MIN_ITERATIONS;
    let tier = smg_format::seal::SealTarget::Tier(Scope::Restricted);
    smg_format::seal::seal_with(&mut doc, tier, b"restricted", n, &[5; 16], &[6; 12]).unwrap();
    doc
}

fn packed(v: &Value) -> Vec<u8> {
    let doc = smg_format::codec::from_json_slice(&canonical(v)).unwrap();
    smg_format::to_bytes(&doc, &WriteOptions::new(Encoding::Packed)).unwrap()
}

/// A coding chat archived by smg: code blocks moved to the vault, revisions as diffs,
/// turns stored as `parts`.
fn code_chat() -> smg_format::Document {
    let mut doc = smg_format::Document::new(smg_format::model::Timestamp::from_static(
        "2025-12-04T10:30:00Z",
    ));
    let revisions = [V1, V2, V3, V2];
    let turns: Vec<Turn> = revisions
        .iter()
        .enumerate()
        .flat_map(|(i, code)| {
            let n = i as u64 * 2 + 1;
            [
                turn(n, 30 + i as u32, "user", &format!("Revision {i} of the handler, please review:\n```js stripe-webhook-handler.js\n{code}```\n")),
                turn(n + 1, 31 + i as u32, "assistant", &format!("Looks right. Same code without the name:\n```js\n{code}```\nDone.")),
            ]
        })
        .collect();
    let options = smg_format::archive::ArchiveOptions::default();
    smg_format::archive::append_turns(&mut doc, &turns, &options).unwrap();
    doc
}

/// `full()` after a curation cycle: lifecycle fields on nodes, a policy, an audit
/// entry with what undoes it, a cycle summary (spec §18).
fn curated() -> Value {
    let mut d = full();
    let pref = d.pointer_mut("/semanticGraph/nodes/6").unwrap();
    pref["tier"] = json!("WARM");
    pref["status"] = json!("active");
    pref["accessCount"] = json!(2);
    pref["lastAccessed"] = json!("2025-12-05T09:00:00Z");
    pref["recentAccesses"] = json!([{"at": "2025-12-04T11:00:00Z", "by": "agent-1"},
                                    {"at": "2025-12-05T09:00:00Z"}]);
    let problem = d.pointer_mut("/semanticGraph/nodes/3").unwrap();
    problem["severity"] = json!("high");
    d["curation"] = json!({
        "policy": {"approvers": {"payments": ["lead_7"]}, "executives": ["cfo_1"],
                   "auditDays": 30, "tombstoneDays": 30},
        "audit": [{
            "id": "cycle-2025-12-06T00:00:00Z/1", "action": "demote", "at": "2025-12-06T00:00:00Z",
            "cycle": "cycle-2025-12-06T00:00:00Z", "node": "n_pref", "score": 7.25,
            "reason": "HOT -> WARM: not used for 12 hours, no active session refers to it",
            "changed": [{"id": "n_pref", "fields": {"tier": "HOT"}}]
        }],
        "cycles": [{"id": "cycle-2025-12-06T00:00:00Z", "at": "2025-12-06T00:00:00Z", "scanned": 11,
                    "promoted": 0, "demoted": 1, "archived": 0, "tombstoned": 0, "purged": 0,
                    "merged": 0, "related": 0}],
        "removed": ["seg-0123456789abcdef"]
    });
    d
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn valid(dir: &Path) {
    let dir = dir.join("valid");
    std::fs::create_dir_all(&dir).unwrap();
    let minimal = json!({"@context": "https://w3id.org/smg/v1", "@type": "SemanticMemoryGraph", "version": "1.0",
                         "metadata": {"created": "2025-12-04T10:30:00Z"}});
    write(&dir, "minimal.smg", &pretty(&minimal));
    write(&dir, "full.smg", &pretty(&full()));
    write(
        &dir,
        "full-brotli.smg",
        &enveloped(&full(), Encoding::Brotli),
    );
    write(&dir, "full-zstd.smg", &enveloped(&full(), Encoding::Zstd));
    write(
        &dir,
        "full-zstd-frame.smg",
        &zstd::encode_all(&canonical(&full())[..], 19).unwrap(),
    );
    write(&dir, "seed-appendix-a.smg", &pretty(&seed_appendix_a()));
    write(&dir, "curated.smg", &pretty(&curated()));
    write(&dir, "full-packed.smg", &packed(&full()));
    write(
        &dir,
        "sealed-sections.smg",
        &pretty(&serde_json::to_value(sealed()).unwrap()),
    );
    write(
        &dir,
        "sealed-conversation.smg",
        &pretty(&serde_json::to_value(sealed_conversation()).unwrap()),
    );
    write(
        &dir,
        "code-chat.smg",
        &pretty(&serde_json::to_value(code_chat()).unwrap()),
    );
    write(
        &dir,
        "code-chat-packed.smg",
        &packed(&serde_json::to_value(code_chat()).unwrap()),
    );
    write(
        &dir,
        "unknown-fields-v1.3.smg",
        &pretty(&with_unknown_fields()),
    );
    write(
        &dir,
        "unknown-fields-v1.3-brotli.smg",
        &enveloped(&with_unknown_fields(), Encoding::Brotli),
    );
    write(
        &dir,
        "archive-gzip.smg",
        &pretty(&archive_with("gzip", gzip)),
    );
    write(
        &dir,
        "archive-stored.smg",
        &pretty(&archive_with("none", <[u8]>::to_vec)),
    );
}

/// An invalid fixture: its bytes, and the error codes a validator must report.
struct Invalid {
    name: &'static str,
    why: &'static str,
    bytes: Vec<u8>,
    codes: &'static [&'static str],
    max_bytes: Option<u64>,
}

fn mutated(f: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut d = full();
    f(&mut d);
    pretty(&d)
}

fn at<'a>(d: &'a mut Value, ptr: &str) -> &'a mut Value {
    d.pointer_mut(ptr).unwrap_or_else(|| panic!("no {ptr}"))
}

fn byte_level() -> Vec<Invalid> {
    let mut packed_list = byte_level_packed();
    packed_list.extend(byte_level_envelope());
    packed_list
}

fn byte_level_packed() -> Vec<Invalid> {
    let good = packed(&full());
    let mut corrupt_block = good.clone();
    // The first archive block's section starts right after the artifacts' sections;
    // find it through the index to flip a byte inside it.
    let offset = u64::from_le_bytes(good[8..16].try_into().unwrap()) as usize;
    let index: Value = serde_json::from_slice(&good[offset..]).unwrap();
    let at = index["blocks"][1]["section"]["offset"].as_u64().unwrap() as usize;
    corrupt_block[at] ^= 0x55;
    let mut past_end = good.clone();
    past_end[8..16].copy_from_slice(&(good.len() as u64 + 10).to_le_bytes());
    let inv = |name, why, bytes, codes| Invalid {
        name,
        why,
        bytes,
        codes,
        max_bytes: None,
    };
    let encrypted = smg_format::crypto::encrypt_with(
        &canonical(&full()),
        b"fixture passphrase",
        smg_format::crypto::MIN_ITERATIONS,
        &[3; 16],
        &[5; 12],
    )
    .unwrap();
    vec![
        inv(
            "encrypted-without-passphrase",
            "an encrypted file (passphrase `fixture passphrase`) read without one",
            encrypted,
            &["SMG-E140"],
        ),
        inv(
            "packed-corrupt-block",
            "a byte of block 2's section is flipped (its CRC-32 fails)",
            corrupt_block,
            &["SMG-E006"],
        ),
        inv(
            "packed-index-past-end",
            "the index offset points past the end of the file",
            past_end,
            &["SMG-E005"],
        ),
        inv(
            "packed-truncated",
            "a packed file cut in half",
            good[..good.len() / 2].to_vec(),
            &["SMG-E005"],
        ),
    ]
}

/// A Zstandard frame of `gib` GiB of zero bytes, 98 kB: one RLE block (a byte and
/// its count) per 128 KiB, no content size in the header (RFC 8878 §3.1.1).
fn zero_frame(gib: u64) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    let blocks = (gib << 30) / BLOCK;
    // Magic; descriptor: no content size, no checksum, no dictionary; window 2^17.
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 7 << 3];
    for i in 0..blocks {
        let last = u32::from(i + 1 == blocks);
        let header = last | (1 << 1) | ((BLOCK as u32) << 3);
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.push(0);
    }
    out
}

fn byte_level_envelope() -> Vec<Invalid> {
    let zstd = enveloped(&full(), Encoding::Zstd);
    let brotli = enveloped(&full(), Encoding::Brotli);
    let patched = |bytes: &[u8], at: usize, value: u8| {
        let mut v = bytes.to_vec();
        v[at] = value;
        v
    };
    let mut bomb_json = canonical(&full());
    bomb_json.extend(std::iter::repeat_n(b' ', 8 << 20));
    let inv = |name, why, bytes, codes| Invalid {
        name,
        why,
        bytes,
        codes,
        max_bytes: None,
    };
    let frame = zero_frame(3);
    let mut zstd_bomb = vec![0x89, b'S', b'M', b'G', 1, 2, 0, 0];
    zstd_bomb.extend_from_slice(&(3u64 << 30).to_le_bytes());
    zstd_bomb.extend_from_slice(&[0; 4]);
    zstd_bomb.extend_from_slice(&frame);
    vec![
        inv(
            "zstd-bomb",
            "98 kB whose header declares 3 GiB of JSON: refused before decompressing (default limit: 64 times the file, at least 256 MiB)",
            zstd_bomb,
            &["SMG-E007"],
        ),
        inv(
            "zstd-bomb-frame",
            "a bare Zstandard frame of 3 GiB of zero bytes in 98 kB: refused at its first byte, which cannot begin a document",
            frame,
            &["SMG-E010"],
        ),
        inv("empty", "a file with no bytes", Vec::new(), &["SMG-E002"]),
        inv(
            "wrong-magic",
            "a ZIP file's magic",
            b"PK\x03\x04rest".to_vec(),
            &["SMG-E003"],
        ),
        inv(
            "unknown-envelope-encoding",
            "encoding byte 7 is not defined",
            patched(&zstd, 5, 7),
            &["SMG-E003"],
        ),
        inv(
            "envelope-version-2",
            "a newer envelope version",
            patched(&zstd, 4, 2),
            &["SMG-E004"],
        ),
        inv(
            "truncated-header",
            "the envelope header is cut at 12 bytes",
            zstd[..12].to_vec(),
            &["SMG-E005"],
        ),
        inv(
            "truncated-brotli",
            "the brotli payload is cut short",
            brotli[..brotli.len() / 2].to_vec(),
            &["SMG-E006"],
        ),
        inv(
            "bad-checksum",
            "the header's CRC-32 does not match",
            patched(&zstd, 16, zstd[16] ^ 0xff),
            &["SMG-E008"],
        ),
        inv(
            "reserved-flags",
            "a reserved flag bit is set",
            patched(&zstd, 6, 1),
            &["SMG-E015"],
        ),
        inv(
            "invalid-utf8",
            "a string holds byte 0xff",
            b"{\"@context\":\"\xff\"}".to_vec(),
            &["SMG-E009"],
        ),
        inv(
            "syntax-error",
            "the JSON text stops mid-object",
            pretty(&full())[..200].to_vec(),
            &["SMG-E010"],
        ),
        inv(
            "nesting-100000",
            "arrays nested 100,000 deep",
            [b"{\"x\":".as_slice(), &[b'['; 100_000]].concat(),
            &["SMG-E011"],
        ),
        Invalid {
            name: "brotli-bomb",
            why: "8 MiB of JSON in a tiny brotli payload, read with a 1 MiB limit",
            bytes: envelope::encode(&bomb_json, &WriteOptions::new(Encoding::Brotli)).unwrap(),
            codes: &["SMG-E007"],
            max_bytes: Some(1 << 20),
        },
    ]
}

fn content_level() -> Vec<Invalid> {
    let inv = |name, why, bytes, codes| Invalid {
        name,
        why,
        bytes,
        codes,
        max_bytes: None,
    };
    vec![
        inv(
            "missing-metadata",
            "no metadata",
            mutated(|d| {
                d.as_object_mut().unwrap().remove("metadata");
            }),
            &["SMG-E100"],
        ),
        inv(
            "wrong-type",
            "importance is a string",
            mutated(|d| *at(d, "/semanticGraph/nodes/0/importance") = json!("high")),
            &["SMG-E101"],
        ),
        inv(
            "unknown-scope",
            "scope `secret` is not a tier",
            mutated(|d| *at(d, "/semanticGraph/nodes/6/scope") = json!("secret")),
            &["SMG-E102"],
        ),
        inv(
            "importance-out-of-range",
            "importance 1.3",
            mutated(|d| *at(d, "/semanticGraph/nodes/1/importance") = json!(1.3)),
            &["SMG-E103"],
        ),
        inv(
            "node-version-zero",
            "an authored node of version 0 (versions count from 1)",
            mutated(|d| at(d, "/semanticGraph/nodes/1")["version"] = json!(0)),
            &["SMG-E103"],
        ),
        inv(
            "compression-ratio-negative",
            "a compression ratio below 0",
            mutated(|d| at(d, "/metadata")["compressionRatio"] = json!(-1.5)),
            &["SMG-E103"],
        ),
        inv(
            "conversation-format-not-text",
            "an archived conversation whose format is a number (JSON the model keeps as it is)",
            mutated(|d| {
                at(d, "/deepArchive")["conversations"] = json!({"c-old": {"format": 5}})
            }),
            &["SMG-E101"],
        ),
        inv(
            "empty-role",
            "a turn of working memory with role \"\"",
            mutated(|d| *at(d, "/workingMemory/recentContext/0/role") = json!("")),
            &["SMG-E104"],
        ),
        inv(
            "strength-negative",
            "edge strength -0.1",
            mutated(|d| *at(d, "/semanticGraph/edges/1/strength") = json!(-0.1)),
            &["SMG-E103"],
        ),
        inv(
            "bad-hash-form",
            "artifact hash is not sha256:<64 hex>",
            mutated(|d| {
                *at(d, "/artifactVault/artifacts/art_002/hash") = json!("sha256:a3f2b8...")
            }),
            &["SMG-E104"],
        ),
        inv(
            "version-3",
            "a document of format 3, which this reader does not know",
            mutated(|d| d["version"] = json!("3.0")),
            &["SMG-E013"],
        ),
        inv(
            "duplicate-node-id",
            "two nodes named n_stripe (one in the shared graph)",
            mutated(|d| *at(d, "/sharedGraph/nodes/0/id") = json!("n_stripe")),
            &["SMG-E110", "SMG-E111"],
        ),
        inv(
            "dangling-edge",
            "an edge to a node that does not exist",
            mutated(|d| *at(d, "/semanticGraph/edges/0/to") = json!("n_missing")),
            &["SMG-E111"],
        ),
        inv(
            "bad-timestamp",
            "a timestamp that is not RFC 3339",
            mutated(|d| *at(d, "/semanticGraph/nodes/1/timestamp") = json!("yesterday at noon")),
            &["SMG-E113"],
        ),
        inv(
            "bad-turn-range",
            "turnRange 50-1",
            mutated(|d| *at(d, "/deepArchive/blocks/1/turnRange") = json!("50-1")),
            &["SMG-E114"],
        ),
        inv(
            "mentioned-backwards",
            "lastMentioned before firstMentioned",
            mutated(|d| *at(d, "/semanticGraph/nodes/0/lastMentioned") = json!(0)),
            &["SMG-E114"],
        ),
        inv(
            "artifact-hash-mismatch",
            "the artifact hash is of another content",
            mutated(|d| {
                *at(d, "/artifactVault/artifacts/art_001/hash") = json!(content_hash("other"))
            }),
            &["SMG-E115"],
        ),
        inv(
            "delta-does-not-apply",
            "version 2's diff does not fit version 1",
            mutated(|d| {
                *at(d, "/artifactVault/artifacts/art_001/versions/0/content") =
                    json!("something else\n");
                at(d, "/artifactVault/artifacts/art_001/versions/0")
                    .as_object_mut()
                    .unwrap()
                    .remove("hash");
            }),
            &["SMG-E116"],
        ),
        inv(
            "corrupt-block",
            "block 2's data is not brotli",
            mutated(|d| *at(d, "/deepArchive/blocks/1/compressedData") = json!("AAAAAAAA")),
            &["SMG-E117"],
        ),
        inv(
            "turn-archived-twice",
            "both blocks claim turns 1-4, so turns 5 and 6, which provenance cites, are gone",
            mutated(|d| {
                let b0 = at(d, "/deepArchive/blocks/0").clone();
                *at(d, "/deepArchive/blocks/1/compressedData") = b0["compressedData"].clone();
                *at(d, "/deepArchive/blocks/1/turnRange") = json!("1-4");
            }),
            &["SMG-E118", "SMG-E126"],
        ),
        inv(
            "provenance-wrong-turn",
            "a decision cites turn 3 as message msg_2, which is turn 2 (a renumbering that left its references behind)",
            mutated(|d| *at(d, "/semanticGraph/nodes/1/provenance/0/turns") = json!([3])),
            &["SMG-E126"],
        ),
        inv(
            "provenance-unknown-message",
            "provenance names message msg_9 of conv_1, which no archived turn is",
            mutated(|d| *at(d, "/semanticGraph/nodes/1/provenance/0/messageIds") = json!(["msg_9"])),
            &["SMG-E126"],
        ),
        inv(
            "turn-outside-range",
            "block 1 says 1-3 but holds turn 4",
            mutated(|d| *at(d, "/deepArchive/blocks/0/turnRange") = json!("1-3")),
            &["SMG-E119"],
        ),
        inv(
            "mixed-scope-block",
            "block 1 says its turns are restricted, but they have no scope (personal)",
            mutated(|d| at(d, "/deepArchive/blocks/0")["scope"] = json!("restricted")),
            &["SMG-E128"],
        ),
        inv(
            "curation-audit-id-twice",
            "two audit entries share an id",
            pretty(&{
                let mut d = curated();
                let e = d["curation"]["audit"][0].clone();
                d["curation"]["audit"].as_array_mut().unwrap().push(e);
                d
            }),
            &["SMG-E127"],
        ),
        inv(
            "curation-unknown-action",
            "an audit entry whose action is not one of the seven",
            pretty(&{
                let mut d = curated();
                d["curation"]["audit"][0]["action"] = json!("shred");
                d
            }),
            &["SMG-E102"],
        ),
        inv(
            "recent-access-bad-time",
            "a retrieval at a time that is not RFC 3339",
            pretty(&{
                let mut d = curated();
                d["semanticGraph"]["nodes"][6]["recentAccesses"][0]["at"] = json!("yesterday");
                d
            }),
            &["SMG-E113"],
        ),
        inv(
            "unknown-severity",
            "severity `urgent` is not one of info, low, medium, high, critical",
            pretty(&{
                let mut d = curated();
                d["semanticGraph"]["nodes"][3]["severity"] = json!("urgent");
                d
            }),
            &["SMG-E102"],
        ),
        inv(
            "departmental-low-confidence",
            "departmental knowledge at confidence 0.6",
            mutated(|d| *at(d, "/semanticGraph/nodes/9/confidence") = json!(0.6)),
            &["SMG-E120"],
        ),
        inv(
            "global-without-approver",
            "global knowledge nobody approved",
            mutated(|d| {
                at(d, "/semanticGraph/nodes/10")
                    .as_object_mut()
                    .unwrap()
                    .remove("approvedBy");
            }),
            &["SMG-E121"],
        ),
        inv(
            "expiry-before-effective",
            "expires before it takes effect",
            mutated(|d| *at(d, "/semanticGraph/nodes/10/expiryDate") = json!("2025-10-01")),
            &["SMG-E122"],
        ),
        inv(
            "dangling-artifact-ref",
            "a node refers to a missing artifact",
            mutated(|d| *at(d, "/semanticGraph/nodes/2/artifactRef") = json!("art_404")),
            &["SMG-E123"],
        ),
        inv(
            "vector-dimensions",
            "a 3-dimensional vector in a 4-dimensional index",
            mutated(|d| {
                *at(d, "/deepArchive/vectorIndex/embeddings/0/vector") = json!([0.1, 0.2, 0.3])
            }),
            &["SMG-E125"],
        ),
        inv(
            "jsonld-dropped-key",
            "a key JSON-LD cannot expand to an IRI",
            mutated(|d| d["bad key"] = json!("dropped")),
            &["SMG-E130"],
        ),
        inv(
            "jsonld-keyword-like-key",
            "`@note` looks like a keyword, so JSON-LD expansion ignores it",
            mutated(|d| d["metadata"]["@note"] = json!("dropped")),
            &["SMG-E130"],
        ),
        inv(
            "jsonld-undecodable-iri",
            "`x%aa` expands to an IRI whose %-escape is not UTF-8",
            mutated(|d| d["x%aa"] = json!("no IRI holds it")),
            &["SMG-E130"],
        ),
    ]
}

fn invalid(dir: &Path) {
    let dir = dir.join("invalid");
    std::fs::create_dir_all(&dir).unwrap();
    for f in byte_level().into_iter().chain(content_level()) {
        write(&dir, &format!("{}.smg", f.name), &f.bytes);
        let mut sidecar = json!({"description": f.why, "codes": f.codes});
        if let Some(m) = f.max_bytes {
            sidecar["maxBytes"] = json!(m);
        }
        write(&dir, &format!("{}.expect.json", f.name), &pretty(&sidecar));
    }
}

/// Write every fixture under `out/valid` and `out/invalid`.
pub(crate) fn write_all(out: &Path) {
    valid(out);
    invalid(out);
}

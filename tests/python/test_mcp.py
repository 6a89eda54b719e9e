"""`smg mcp` driven by the official MCP Python SDK (PyPI `mcp`) over stdio, as an agent
drives it; and beside the reference memory server (npm
`@modelcontextprotocol/server-memory`, installed in tests/mcp/) given the same calls."""

import asyncio
import json
import os
import pathlib
import shutil
import subprocess

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMG = os.environ.get("SMG_BIN", str(ROOT / "target" / "debug" / "smg"))
REFERENCE = ROOT / "tests" / "mcp" / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo-dev" / "26.json"

MEMORY_TOOLS = ["create_entities", "create_relations", "add_observations", "delete_entities",
                "delete_observations", "delete_relations", "read_graph", "search_nodes", "open_nodes"]
SMG_TOOLS = ["search_memory", "get_context", "expand_segment", "query", "search_conversation_memory",
             "search_departmental_knowledge", "search_global_knowledge", "intelligent_search"]


def smg(*args, env=None):
    out = subprocess.run([SMG, *map(str, args)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def run(params, script):
    async def main():
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                return await script(s)
    return asyncio.run(main())


def served(path, *flags, env=None):
    return StdioServerParameters(command=SMG, args=["mcp", str(path), *flags], env=env)


async def call(s, tool, args):
    res = await s.call_tool(tool, args)
    assert not res.is_error, res.content[0].text
    return res


async def session(s):
    """One scripted session of the memory tools; returns what each call gave."""
    out = []
    out.append((await call(s, "create_entities", {"entities": [
        {"name": "Ada", "entityType": "person", "observations": ["likes tea", "lives in Lisbon"]},
        {"name": "Acme", "entityType": "company", "observations": []},
        {"name": "Ñandú ☕", "entityType": "place", "observations": ["line\nbreak inside"]},
    ]})).structured_content)
    out.append((await call(s, "create_entities", {"entities": [
        {"name": "Ada", "entityType": "robot", "observations": []}]})).structured_content)
    out.append((await call(s, "create_relations", {"relations": [
        {"from": "Ada", "to": "Acme", "relationType": "works_at"},
        {"from": "Ada", "to": "Ñandú ☕", "relationType": "visited"}]})).structured_content)
    out.append((await call(s, "create_relations", {"relations": [
        {"from": "Ada", "to": "Acme", "relationType": "works_at"}]})).structured_content)
    out.append((await call(s, "add_observations", {"observations": [
        {"entityName": "Ada", "contents": ["likes tea", "plays chess"]}]})).structured_content)
    out.append((await call(s, "delete_observations", {"deletions": [
        {"entityName": "Ada", "observations": ["lives in Lisbon"]}]})).structured_content)
    out.append((await call(s, "search_nodes", {"query": "CHESS"})).structured_content)
    out.append((await call(s, "open_nodes", {"names": ["Acme", "Nobody"]})).structured_content)
    out.append((await call(s, "delete_relations", {"relations": [
        {"from": "Ada", "to": "Ñandú ☕", "relationType": "visited"}]})).structured_content)
    out.append((await call(s, "create_entities", {"entities": [
        {"name": "Bob", "entityType": "person", "observations": ["new"]}]})).structured_content)
    out.append((await call(s, "delete_entities", {"entityNames": ["Bob", "Nobody"]})).structured_content)
    out.append((await call(s, "read_graph", {})).structured_content)
    return out


def canonical(value):
    """Dictionaries compare by content; lists keep their order."""
    return json.loads(json.dumps(value, sort_keys=True))


def test_the_server_names_itself_smg_with_smgs_version(tmp_path):
    smg("init", tmp_path / "m.smg")

    async def main():
        async with stdio_client(served(tmp_path / "m.smg")) as (r, w):
            async with ClientSession(r, w) as s:
                return await s.initialize()
    info = asyncio.run(main()).server_info
    assert (info.name, info.version) == ("smg", smg("--version").split()[-1])


def test_tools_are_listed_with_the_reference_names(tmp_path):
    smg("init", tmp_path / "m.smg")
    names = run(served(tmp_path / "m.smg"), lambda s: s.list_tools())
    assert sorted(t.name for t in names.tools) == sorted(MEMORY_TOOLS + SMG_TOOLS)
    schema = next(t for t in names.tools if t.name == "create_entities").input_schema
    assert "entities" in schema["properties"]


@pytest.mark.skipif(not REFERENCE.exists() and os.environ.get("SMG_REQUIRE_SERVERS") != "1",
                    reason="the reference server is not installed (npm ci in tests/mcp)")
def test_a_session_answers_as_the_reference_server_does(tmp_path):
    smg("init", tmp_path / "m.smg")
    ours = run(served(tmp_path / "m.smg"), session)
    env = {**os.environ, "MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
    theirs = run(StdioServerParameters(command="node", args=[str(REFERENCE)], env=env), session)
    assert canonical(ours) == canonical(theirs)
    # The reference server's own file imports into smg and exports back equal.
    smg("ingest", "--from", "mcp-memory", tmp_path / "memory.jsonl", "-o", tmp_path / "from-ref.smg")
    smg("export", tmp_path / "from-ref.smg", "--to", "mcp-memory", "-o", tmp_path / "back.jsonl")
    lines = lambda p: [json.loads(x) for x in p.read_text().splitlines() if x.strip()]
    assert lines(tmp_path / "back.jsonl") == lines(tmp_path / "memory.jsonl")
    # And smg's own file exports the same graph.
    smg("export", tmp_path / "m.smg", "--to", "mcp-memory", "-o", tmp_path / "ours.jsonl")
    assert lines(tmp_path / "ours.jsonl") == lines(tmp_path / "memory.jsonl")


def test_writes_are_durable_valid_and_seen_by_a_new_server(tmp_path):
    path = tmp_path / "m.smg"
    smg("init", path)
    run(served(path), session)
    smg("validate", path)
    graph = run(served(path), lambda s: s.call_tool("read_graph", {}))
    assert [e["name"] for e in graph.structured_content["entities"]] == ["Ada", "Acme", "Ñandú ☕"]

    async def unknown(s):
        return await s.call_tool("add_observations", {"observations": [
            {"entityName": "Ada", "contents": ["x"]}, {"entityName": "Nobody", "contents": ["y"]}]})
    before = path.read_bytes()
    res = run(served(path), unknown)
    assert res.is_error and "SMG-E202" in res.content[0].text
    assert path.read_bytes() == before, "a refused call changes nothing"


def test_read_only_refuses_writes_and_still_reads(tmp_path):
    path = tmp_path / "m.smg"
    smg("init", path)
    run(served(path), session)
    before = path.read_bytes()

    async def script(s):
        refused = await s.call_tool("create_entities", {"entities": [
            {"name": "Eve", "entityType": "person", "observations": []}]})
        found = await call(s, "search_nodes", {"query": "tea"})
        return refused, found
    refused, found = run(served(path, "--read-only"), script)
    assert refused.is_error and "SMG-E321" in refused.content[0].text
    assert found.structured_content["entities"][0]["name"] == "Ada"
    assert path.read_bytes() == before


def test_another_writer_is_seen_at_the_next_call(tmp_path):
    path = tmp_path / "m.smg"
    smg("init", path)

    async def script(s):
        await call(s, "create_entities", {"entities": [{"name": "Ada", "entityType": "person", "observations": []}]})
        jsonl = tmp_path / "more.jsonl"
        jsonl.write_text(json.dumps({"type": "entity", "name": "Zed", "entityType": "person",
                                     "observations": ["from the CLI"]}) + "\n")
        smg("ingest", "--append", path, "--from", "mcp-memory", jsonl)
        return await call(s, "open_nodes", {"names": ["Ada", "Zed"]})
    got = run(served(path), script)
    assert sorted(e["name"] for e in got.structured_content["entities"]) == ["Ada", "Zed"]


def test_an_encrypted_memory_stays_encrypted(tmp_path):
    path = tmp_path / "m.smg"
    smg("init", tmp_path / "plain.smg")
    env = {**os.environ, "SMG_PASSPHRASE": "correct horse battery staple"}
    smg("encrypt", tmp_path / "plain.smg", "-o", path, env=env)
    run(served(path, env=env), session)
    assert b"Ada" not in path.read_bytes()
    assert "Ada" in smg("cat", path, env=env)


@pytest.fixture(scope="module")
def locomo(tmp_path_factory):
    path = tmp_path_factory.mktemp("locomo") / "26.smg"
    smg("ingest", LOCOMO, "-o", path)
    return path


def test_smg_tools_give_what_the_cli_gives(locomo):
    async def script(s):
        ctx = await call(s, "get_context", {"query": "What did Caroline research?", "budget": 500})
        found = await call(s, "search_memory", {"query": "adoption agencies", "k": 3})
        cards = ctx.structured_content.get("cards") or []
        decisions = await call(s, "query", {"query": "FIND decisions ORDER BY timestamp"})
        working = await s.read_resource("smg://working-memory")
        return ctx, found, decisions, working
    ctx, found, decisions, working = run(served(locomo, "--read-only"), script)
    assert ctx.content[0].text == smg("context", locomo, "What did Caroline research?", "--budget", "500")
    cli = json.loads(smg("search", locomo, "adoption agencies", "-k", "3", "--json"))
    assert found.structured_content == cli
    assert decisions.structured_content["nodes"] == json.loads(
        smg("query", locomo, "FIND decisions ORDER BY timestamp", "--json"))
    doc = json.loads(smg("cat", locomo))
    assert json.loads(working.contents[0].text)["summary"] == doc["workingMemory"]["summary"]


def test_a_span_of_time_is_kept_to_as_the_cli_keeps_to_it(locomo):
    span = ["--since", "2023-07-01", "--until", "2023-08-31"]

    async def script(s):
        found = await call(s, "search_memory", {"query": "adoption agencies", "k": 5,
                                                "since": "2023-07-01", "until": "2023-08-31"})
        ctx = await call(s, "get_context", {"query": "What did Caroline research?", "budget": 500,
                                            "since": "2023-07-01", "until": "2023-08-31"})
        bad = await s.call_tool("search_memory", {"query": "adoption", "since": "yesterday"})
        return found, ctx, bad
    found, ctx, bad = run(served(locomo, "--read-only"), script)
    cli = json.loads(smg("search", locomo, "adoption agencies", "-k", "5", "--json", *span))
    assert found.structured_content == cli
    every = cli["hits"] + cli["nodes"]
    assert every and all("2023-07-01" <= r["timestamp"][:10] <= "2023-08-31" for r in every)
    assert ctx.content[0].text == smg("context", locomo, "What did Caroline research?", "--budget", "500", *span)
    assert bad.is_error and "SMG-E020" in bad.content[0].text


def test_expand_segment_gives_the_turns_byte_for_byte(locomo):
    doc = json.loads(smg("cat", locomo))
    segment = next(n for n in doc["semanticGraph"]["nodes"] if n["type"] == "segment")
    res = run(served(locomo, "--read-only"), lambda s: call(s, "expand_segment", {"id": segment["id"]}))
    assert res.content[0].text == smg("expand", locomo, segment["id"])


def test_search_context_and_expand_follow_links_as_the_cli_does(tmp_path, locomo):
    team = tmp_path / "team.jsonl"
    team.write_text(json.dumps({"conversation_id": "t1", "message_id": "1", "role": "user",
                                "content": "The staging cluster runs in the Frankfurt region.",
                                "timestamp": "2025-03-01T09:00:00Z"}) + "\n")
    mine = tmp_path / "mine.smg"
    shutil.copy(locomo, mine)
    smg("ingest", team, "-o", tmp_path / "team.smg")
    smg("link", "add", mine, tmp_path / "team.smg", "--name", "team")
    query = "Frankfurt staging adoption agencies"

    async def script(s):
        found = await call(s, "search_memory", {"query": query, "k": 5})
        ctx = await call(s, "get_context", {"query": query, "budget": 400})
        turns = await call(s, "search_conversation_memory", {"query": "Frankfurt staging"})
        hit = next(h for h in found.structured_content["hits"] if h["file"]["name"] == "team")
        expanded = await call(s, "expand_segment", {"id": hit["segment"], "link": "team"})
        found_nodes = await call(s, "query", {"query": "FIND segments ORDER BY timestamp DESC"})
        return found, ctx, turns, expanded, found_nodes
    found, ctx, turns, expanded, found_nodes = run(served(mine, "--read-only"), script)
    assert found_nodes.structured_content["nodes"] == json.loads(
        smg("query", mine, "FIND segments ORDER BY timestamp DESC", "--json"))
    assert found_nodes.structured_content["nodes"][0]["file"]["name"] == "team"
    assert found.structured_content == json.loads(smg("search", mine, query, "-k", "5", "--json"))
    assert ctx.content[0].text == smg("context", mine, query, "--budget", "400")
    assert "· team\n" in ctx.content[0].text
    assert turns.structured_content["results"][0]["file"]["name"] == "team"
    assert "Frankfurt" in expanded.content[0].text

    alone = run(served(mine, "--read-only", "--no-links"),
                lambda s: call(s, "search_memory", {"query": "Frankfurt staging", "k": 5}))
    assert all("file" not in h for h in alone.structured_content["hits"])
    assert all("Frankfurt" not in h["content"] for h in alone.structured_content["hits"])


def test_tier_searches_keep_to_their_tier(tmp_path, locomo):
    doc = json.loads(smg("cat", locomo))
    nodes = doc["semanticGraph"]["nodes"]
    nodes.append({"id": "k-dep", "type": "memory", "label": "Adoption agencies checklist",
                  "content": "How to contact adoption agencies: call first, then send the forms.",
                  "scope": "departmental", "department": "hr", "knowledgeType": "how_to",
                  "confidence": 0.9, "approvedBy": "head"})
    nodes.append({"id": "k-glob", "type": "memory", "label": "Adoption leave policy",
                  "content": "Adoption agencies paperwork qualifies for two days of leave.",
                  "scope": "global", "knowledgeType": "policy", "effectiveDate": "2024-01-01T00:00:00Z",
                  "confidence": 0.95, "approvedBy": "ceo"})
    nodes.append({"id": "k-old", "type": "memory", "label": "Old adoption policy",
                  "content": "Adoption agencies paperwork gave one day of leave.",
                  "scope": "global", "knowledgeType": "policy", "effectiveDate": "2020-01-01T00:00:00Z",
                  "expiryDate": "2023-01-01T00:00:00Z", "confidence": 0.95, "approvedBy": "ceo"})
    path = tmp_path / "tiers.smg"
    path.write_text(json.dumps(doc))
    smg("validate", path)

    async def script(s):
        dep = await call(s, "search_departmental_knowledge", {"query": "adoption agencies", "department": "hr"})
        other = await call(s, "search_departmental_knowledge", {"query": "adoption agencies", "department": "sales"})
        glob = await call(s, "search_global_knowledge", {"query": "adoption agencies paperwork"})
        conv = await call(s, "search_conversation_memory", {"query": "adoption agencies", "limit": 2})
        every = await call(s, "intelligent_search", {"query": "adoption agencies"})
        return dep, other, glob, conv, every
    dep, other, glob, conv, every = run(served(path, "--read-only"), script)
    assert [r["id"] for r in dep.structured_content["results"]] == ["k-dep"]
    assert other.structured_content["results"] == []
    assert [r["id"] for r in glob.structured_content["results"]] == ["k-glob"], "the expired one is out"
    turns = conv.structured_content["results"]
    assert len(turns) == 2 and all(t["type"] == "turn" for t in turns)
    assert "adoption" in turns[0]["content"].lower()
    e = every.structured_content
    assert [r["id"] for r in e["departmental"]] == ["k-dep"] and [r["id"] for r in e["global"]] == ["k-glob"]
    assert len(e["personal"]) == 3


def crowded(tmp_path, n=300):
    """A memory of `n` entities that all mention tea, each with long observations."""
    lines = [json.dumps({"type": "entity", "name": f"Person {i:03}", "entityType": "person",
                         "observations": [f"drinks tea every day, note {j}: " + "words " * 40
                                          for j in range(3)]})
             for i in range(n)]
    src = tmp_path / "memory.jsonl"
    src.write_text("\n".join(lines) + "\n")
    path = tmp_path / "m.smg"
    smg("ingest", "--from", "mcp-memory", src, "-o", path)
    return path


def test_answers_fit_a_context_window_and_page_through_everything(tmp_path):
    path = crowded(tmp_path)

    async def script(s):
        pages, offset = [], 0
        while offset is not None:
            res = await call(s, "search_nodes", {"query": "tea", "offset": offset})
            pages.append((res.content[0].text, res.structured_content))
            offset = res.structured_content.get("nextOffset")
        whole = await call(s, "read_graph", {})
        small = await call(s, "search_nodes", {"query": "tea", "limit": 7})
        return pages, whole, small

    pages, whole, small = run(served(path, "--read-only"), script)
    assert len(pages) >= 6
    names = [e["name"] for _, page in pages for e in page["entities"]]
    assert sorted(names) == [f"Person {i:03}" for i in range(300)], "every match once"
    for text, page in pages:
        assert len(text) <= 64_000
        assert len(page["entities"]) <= 50
        assert page["matched"] == 300
    assert len(whole.content[0].text) <= 64_000 and whole.structured_content["matched"] == 300
    assert len(small.structured_content["entities"]) == 7
    schema = run(served(path), lambda s: s.list_tools())
    search = next(t for t in schema.tools if t.name == "search_nodes")
    assert {"offset", "limit"} <= set(search.input_schema["properties"])


def test_unbounded_answers_as_the_reference_server_does(tmp_path):
    path = crowded(tmp_path, n=120)
    res = run(served(path, "--unbounded"), lambda s: call(s, "search_nodes", {"query": "tea"}))
    assert len(res.structured_content["entities"]) == 120
    assert "matched" not in res.structured_content

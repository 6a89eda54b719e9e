// smg view: the page's own script. It reads the data blocks smg wrote into the page,
// draws the graph with Cytoscape.js, and never asks the network for anything.
// Text from the memory only ever reaches the page as text nodes (never as markup).
(function () {
  'use strict';
  const started = performance.now();
  const $ = (id) => document.getElementById(id);
  const block = (id) => { const e = $(id); return e ? JSON.parse(e.textContent) : null; };
  const D = block('smg-data');
  const N = D.nodes, E = D.edges;
  const view = window.smgView = { ready: false, data: D };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'onclick') e.addEventListener('click', v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k instanceof Node ? k : String(k));
    return e;
  }
  const clear = (e) => { while (e.firstChild) e.removeChild(e.firstChild); return e; };

  // ---- lazily read blocks --------------------------------------------------------
  let details = null, vault = null, index = null;
  const chunks = new Map();
  // Turn `p` of conversation `c`, its block of turns parsed the first time it is needed.
  const turnAt = (c, p) => {
    const key = c + '-' + Math.floor(p / D.chunk);
    if (!chunks.has(key)) chunks.set(key, block('smg-turns-' + key) || []);
    return chunks.get(key)[p % D.chunk];
  };
  view.turnAt = turnAt;
  const detail = (k) => { details = details || block('smg-details'); return details[k]; };
  // A network's page: the linked file each thing is of (none for the file asked).
  const fileName = (k) => (D.files && k ? D.files[k].name : null);
  const fromFile = (k) => { const f = fileName(k); return f ? el('span', { class: 'badge file' }, f) : null; };
  view.fileName = fileName;
  const convStart = [0];
  for (const c of D.conversations) convStart.push(convStart[convStart.length - 1] + c.turns);

  // ---- tabs ---------------------------------------------------------------------
  const shown = new Set();
  function tab(name) {
    for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === name);
    for (const s of document.querySelectorAll('.tab')) s.classList.toggle('active', s.id === 'tab-' + name);
    if (!shown.has(name)) { shown.add(name); (renderers[name] || (() => {}))(); }
    if (name === 'graph' && view.cy) view.cy.resize();
  }
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => tab(b.dataset.tab));

  // ---- header -------------------------------------------------------------------
  $('title').textContent = D.title;
  const s = D.stats;
  $('counts').textContent = `${s.nodes} nodes · ${s.edges} edges · ${s.turns} turns · ${s.artifacts} artifacts` +
    (s.sealed ? ` · ${s.sealed} sealed` : '') + (s.linked_files ? ` · with ${s.linked_files} linked file${s.linked_files > 1 ? 's' : ''}` : '');
  document.querySelector('#tabs [data-tab=sealed]').textContent = `Sealed (${D.sealed.length})`;

  // ---- graph --------------------------------------------------------------------
  const TIER = { personal: '#5f6368', departmental: '#188038', global: '#1967d2', restricted: '#c5221f' };
  const SHAPES = { decision: 'diamond', memory: 'ellipse', entity: 'round-rectangle', concept: 'hexagon',
    artifact: 'rectangle', segment: 'round-triangle', sealed: 'octagon' };
  const SPARE = ['pentagon', 'star', 'barrel', 'tag', 'vee', 'rhomboid', 'heptagon', 'cut-rectangle'];
  const types = [...new Set(N.map((n) => n[1]))].sort();
  types.forEach((t, k) => { if (!SHAPES[t]) SHAPES[t] = SPARE[k % SPARE.length]; });
  const tiers = [...new Set(N.map((n) => n[3]))].sort();
  const PALETTE = ['#8ab4f8', '#f28b82', '#81c995', '#fdd663', '#c58af9', '#78d9ec', '#fcad70', '#ff8bcb', '#a8dab5', '#aecbfa'];
  const relationColour = (r) => PALETTE[r % PALETTE.length];
  const maxImportance = N.reduce((m, n) => Math.max(m, n[4]), 0) || 1;
  const hidden = { type: new Set(), tier: new Set(), file: new Set() };
  // Each node's file, by name: the file asked's is its own title.
  const nodeFile = (k) => fileName(D.nodeFiles ? D.nodeFiles[k] : 0) || D.title;
  const facet = { type: (n) => n[1], tier: (n) => n[3], file: (n, k) => nodeFile(k) };
  // Labels of the most important nodes show at once; the rest on hover and selection.
  const LABELLED = 40;
  const pinned = new Set();
  let limit = D.shown;

  function filters(box, values, kind) {
    for (const v of values) {
      const count = N.filter((n, k) => facet[kind](n, k) === v).length;
      const input = el('input', { type: 'checkbox', 'data-value': v });
      input.checked = true;
      input.addEventListener('change', () => { input.checked ? hidden[kind].delete(v) : hidden[kind].add(v); draw(); });
      box.append(el('label', null, input, ` ${v} (${count})`));
    }
  }
  filters($('type-filters'), types, 'type');
  filters($('tier-filters'), tiers, 'tier');
  if (D.files) {
    $('file-filters').hidden = false;
    filters($('file-filter-list'), [D.title, ...D.files.slice(1).map((f) => f.name)], 'file');
  }
  D.relations.forEach((r, k) => {
    const swatch = el('span', { class: 'swatch' });
    swatch.style.background = relationColour(k);
    $('relations').append(el('div', null, swatch, ` ${r}`));
  });
  for (const t of tiers) {
    const swatch = el('span', { class: 'swatch ring' });
    swatch.style.borderColor = TIER[t] || '#5f6368';
    $('tier-filters').querySelector(`[data-value="${CSS.escape(t)}"]`).after(swatch);
  }

  function visible() {
    const out = [];
    let taken = 0;
    N.forEach((n, k) => {
      const ok = !hidden.type.has(n[1]) && !hidden.tier.has(n[3]) && !(hidden.file.size && hidden.file.has(nodeFile(k)));
      if (ok && taken < limit) { out.push(k); taken++; } else if (pinned.has(k)) out.push(k);
    });
    return out;
  }

  function colour(n) {
    if (n[7] & 2) return '#bdc1c6';
    const fresh = n[5] / 100;
    return `hsl(214, ${Math.round(15 + 70 * fresh)}%, ${Math.round(72 - 22 * fresh)}%)`;
  }

  function elements(ks) {
    const on = new Set(ks);
    const nodes = ks.map((k) => {
      const n = N[k];
      const size = 14 + 34 * Math.sqrt(Math.max(0, n[4]) / maxImportance);
      // Labels grow with importance: the important ones read at once, the rest on zoom.
      const font = 8 + 6 * (n[4] / maxImportance);
      return { group: 'nodes', data: { id: 'n' + k, k, label: n[2], size, font, colour: colour(n),
        border: TIER[n[3]] || '#5f6368', shape: SHAPES[n[1]], imp: n[4] },
        classes: [(n[7] & 1) ? 'tombstone' : '', (n[7] & 2) ? 'sealed' : '', k < LABELLED ? 'labelled' : ''].join(' ') };
    });
    const edges = [];
    E.forEach((e, j) => {
      if (on.has(e[0]) && on.has(e[1])) {
        edges.push({ group: 'edges', data: { id: 'e' + j, source: 'n' + e[0], target: 'n' + e[1], label: D.relations[e[2]], colour: relationColour(e[2]) } });
      }
    });
    return nodes.concat(edges);
  }

  const STYLE = [
    { selector: 'node', style: { width: 'data(size)', height: 'data(size)', shape: 'data(shape)', 'background-color': 'data(colour)',
      'border-width': 2, 'border-color': 'data(border)', 'font-size': 'data(font)', 'text-valign': 'bottom',
      'text-margin-y': 2, 'text-max-width': 120, 'text-wrap': 'ellipsis', 'min-zoomed-font-size': 6, color: '#3c4043' } },
    { selector: 'node.labelled, node.hover, node.near, node:selected', style: { label: 'data(label)' } },
    { selector: 'node.hover, node.near, node:selected', style: { 'font-size': 9, 'z-index': 10 } },
    { selector: 'node.tombstone', style: { opacity: 0.4 } },
    { selector: 'node.sealed', style: { 'border-style': 'dashed' } },
    { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#f9ab00' } },
    { selector: 'edge', style: { width: 1, 'line-color': 'data(colour)', 'curve-style': 'haystack', opacity: 0.7 } },
    { selector: 'edge:selected, node:selected edge', style: { 'line-color': '#f9ab00' } },
    { selector: 'edge.near', style: { label: 'data(label)', 'font-size': 7, color: '#5f6368', 'line-color': '#f9ab00', width: 2 } },
  ];

  function layout(count) {
    // Force-directed reads best but costs O(n²) a step: a few hundred nodes only.
    return count <= 300
      ? { name: 'cose', animate: false, randomize: true, numIter: 600, nodeDimensionsIncludeLabels: false, idealEdgeLength: () => 48 }
      : { name: 'concentric', animate: false, concentric: (n) => n.data('imp'), levelWidth: () => maxImportance / 10, minNodeSpacing: 6 };
  }

  function draw(select, done) {
    const ks = visible();
    $('shown-count').textContent = `Showing ${ks.length} of ${N.length} nodes, the most important first` +
      (pinned.size ? ` (${pinned.size} added by you)` : '') + '.';
    $('more').disabled = ks.length - pinned.size >= N.length;
    const cy = view.cy;
    cy.startBatch();
    cy.elements().remove();
    cy.add(elements(ks));
    cy.endBatch();
    const l = cy.layout(layout(ks.length));
    l.one('layoutstop', () => { if (select != null) focus(select); if (done) done(); });
    l.run();
  }

  function focus(k) {
    const cy = view.cy;
    const node = cy.getElementById('n' + k);
    cy.elements().unselect();
    cy.elements().removeClass('near');
    if (node.nonempty()) {
      node.select();
      node.connectedEdges().addClass('near');
      node.neighborhood('node').addClass('near');
      cy.animate({ center: { eles: node }, zoom: Math.max(cy.zoom(), 1.2) }, { duration: 200 });
    }
    showNode(k);
  }

  function showNode(k) {
    const n = N[k];
    const box = clear($('details'));
    box.append(el('h2', null, n[2]));
    const nodeFile = D.nodeFiles ? D.nodeFiles[k] : 0;
    box.append(el('p', null, el('span', { class: 'badge' }, n[1]), el('span', { class: 'badge' }, n[3]), fromFile(nodeFile),
      `importance ${n[4]} · freshness ${n[5]}% · ${n[6]}`));
    const d = detail(k);
    if (!d) { box.append(el('p', { class: 'hint' }, 'Sealed: only its id and tier may be shown.'), el('p', null, n[0])); return; }
    const prov = el('div', { class: 'provenance' }, el('h3', null, `Provenance (${d.turns.length} turns)`));
    for (const [c, p] of d.turns.slice(0, 30)) prov.append(turnView(c, p, true));
    if (!d.turns.length) prov.append(el('p', { class: 'hint' }, 'No archived turn is named as its source.'));
    box.append(prov);
    const links = E.filter((e) => e[0] === k || e[1] === k).slice(0, 50);
    if (links.length) {
      box.append(el('h3', null, 'Edges'));
      for (const e of links) {
        const other = e[0] === k ? e[1] : e[0];
        box.append(el('div', { class: 'edge' }, e[0] === k ? '→ ' : '← ', D.relations[e[2]] + ' ',
          el('a', { href: '#', onclick: (ev) => { ev.preventDefault(); reveal(other); } }, N[other][2])));
      }
    }
    const rows = el('table', { class: 'fields' });
    for (const [key, value] of Object.entries(d.node)) {
      rows.append(el('tr', null, el('td', null, key), el('td', null, typeof value === 'string' ? value : JSON.stringify(value, null, 1))));
    }
    const all = el('details', { class: 'all-fields' }, el('summary', null, 'All fields'), rows);
    all.open = true;
    box.append(all);
  }

  function reveal(k) {
    tab('graph');
    if (view.cy.getElementById('n' + k).empty()) { pinned.add(k); draw(k); } else focus(k);
  }
  view.reveal = reveal;

  $('more').addEventListener('click', () => { limit += D.shown; draw(); });
  $('fit').addEventListener('click', () => view.cy.fit(undefined, 20));

  // ---- turns, archive -----------------------------------------------------------
  function turnView(c, p, link) {
    const t = turnAt(c, p);
    if (!t) return el('div', { class: 'hint' }, `turn ${c}:${p} is not in the archive`);
    const [n, role, speaker, time, session, content, artifacts] = t;
    const conv = D.conversations[c];
    const who = [`#${n}`, speaker || role, time, session ? `session ${session}` : null, conv.id || null, fileName(conv.file)].filter(Boolean).join(' · ');
    const box = el('div', { class: `turn ${role}`, 'data-turn': String(n) }, el('div', { class: 'who' }, who), el('div', { class: 'text' }, content));
    for (const [id, v] of artifacts) {
      const a = D.artifacts.findIndex((x) => x.id === id && (x.file || 0) === (conv.file || 0));
      box.append(el('a', { href: '#', onclick: (ev) => { ev.preventDefault(); openArtifact(a, v); } }, `${D.artifacts[a] ? D.artifacts[a].name : id} v${v}`), ' ');
    }
    if (link) box.append(el('a', { href: '#', onclick: (ev) => { ev.preventDefault(); openConversation(c, p); } }, 'open in the archive'));
    return box;
  }

  const PAGE = 300;
  function openConversation(c, target) {
    tab('archive');
    for (const it of document.querySelectorAll('#conv-list .item')) it.classList.toggle('active', it.dataset.c === String(c));
    const pane = clear($('conv-view'));
    const info = D.conversations[c];
    pane.append(el('h2', null, info.id || '(turns without a conversation)', fromFile(info.file)), el('p', { class: 'hint' }, `${info.turns} turns`));
    let upto = 0;
    const more = el('button', { type: 'button' }, 'More turns');
    const grow = (n) => {
      const end = Math.min(info.turns, n);
      for (; upto < end; upto++) pane.insertBefore(turnView(c, upto), more);
      more.hidden = upto >= info.turns;
    };
    more.addEventListener('click', () => grow(upto + PAGE));
    pane.append(more);
    grow(target != null ? Math.max(PAGE, target + 1) : PAGE);
    if (target != null) {
      const e = pane.querySelectorAll('.turn')[target];
      if (e) { e.classList.add('target'); e.scrollIntoView({ block: 'center' }); }
    }
  }
  view.openConversation = openConversation;

  // ---- vault --------------------------------------------------------------------
  const KIND = { ' ': 'same', '-': 'del', '+': 'add', '~': 'chg', '…': 'gap' };
  function openArtifact(a, v) {
    if (a < 0) return;
    tab('vault');
    vault = vault || block('smg-vault');
    for (const it of document.querySelectorAll('#artifact-list .item')) it.classList.toggle('active', it.dataset.a === String(a));
    const art = vault[a];
    const pane = clear($('artifact-view'));
    pane.append(el('h2', null, art.name, fromFile(art.file)), el('p', { class: 'hint' }, [art.type, art.language, art.id].filter(Boolean).join(' · ')));
    const bar = el('div', { class: 'versions' });
    pane.append(bar);
    const ver = art.versions.find((x) => x.v === v) || art.versions[art.versions.length - 1];
    for (const x of art.versions) {
      bar.append(el('button', { type: 'button', class: x === ver ? 'active' : '', onclick: () => openArtifact(a, x.v) }, `v${x.v}`));
    }
    pane.append(el('p', { class: 'hint' }, `v${ver.v} · ${ver.lines} lines` + (ver.timestamp ? ` · ${ver.timestamp}` : '') +
      (ver.v > 1 ? ` · beside v${ver.v - 1}` : ' · the first version')));
    const table = el('table', { class: 'diff' });
    for (const [k, on, ot, nn, nt] of ver.rows) {
      table.append(k === '…'
        ? el('tr', { class: 'gap' }, el('td', { colspan: '4' }, `… ${on} unchanged lines …`))
        : el('tr', { class: KIND[k] }, el('td', { class: 'no' }, on ?? ''), el('td', { class: 'old' }, ot),
          el('td', { class: 'no' }, nn ?? ''), el('td', { class: 'new' }, nt)));
    }
    pane.append(table);
  }
  view.openArtifact = openArtifact;

  const renderers = {
    archive() {
      const list = $('conv-list');
      D.conversations.forEach((c, k) => list.append(el('div', { class: 'item', 'data-c': String(k), onclick: () => openConversation(k) },
        el('div', null, c.id || '(no conversation)', fromFile(c.file)), el('div', { class: 'hint' }, `${c.turns} turns` + (c.first ? ` · ${c.first.slice(0, 10)} – ${c.last.slice(0, 10)}` : '')))));
      if (!D.conversations.length) list.append(el('p', { class: 'hint' }, 'The archive is empty.'));
    },
    vault() {
      const list = $('artifact-list');
      D.artifacts.forEach((a, k) => list.append(el('div', { class: 'item', 'data-a': String(k), onclick: () => openArtifact(k) },
        el('div', null, a.name, fromFile(a.file)), el('div', { class: 'hint' }, [a.type, a.language, `${a.versions} versions`].filter(Boolean).join(' · ')))));
      if (!D.artifacts.length) list.append(el('p', { class: 'hint' }, 'The vault is empty.'));
    },
    timeline() {
      const box = $('tab-timeline');
      box.classList.add('timeline');
      let upto = 0, day = null;
      const more = el('button', { type: 'button' }, 'More');
      const grow = () => {
        const end = Math.min(D.timeline.length, upto + 1000);
        for (; upto < end; upto++) {
          const [time, kind, label, a, b] = D.timeline[upto];
          if (time.slice(0, 10) !== day) { day = time.slice(0, 10); box.insertBefore(el('div', { class: 'day' }, day), more); }
          const go = kind === 'session' ? () => openConversation(a, b) : kind === 'decision' ? () => reveal(a) : () => openArtifact(a, b);
          box.insertBefore(el('div', { class: 'event', onclick: go }, el('span', { class: 'time' }, time.slice(11, 16)),
            el('span', { class: `badge ${kind}` }, kind), label), more);
        }
        more.hidden = upto >= D.timeline.length;
      };
      more.addEventListener('click', grow);
      box.append(el('p', { class: 'hint' }, `${D.timeline.length} dated sessions, decisions and artifact versions, oldest first.`), more);
      grow();
    },
    sealed() {
      const box = $('tab-sealed');
      if (!D.sealed.length) { box.append(el('p', null, 'No sealed sections.')); return; }
      box.append(el('p', { class: 'hint' }, 'Sealed sections are shown by what anyone may know of them: never their content.'));
      const heads = ['id', 'kind', 'tier', 'collaborator', 'bytes', 'nodes'].concat(D.files ? ['file'] : []);
      const t = el('table', { class: 'sealed' }, el('tr', null, ...heads.map((h) => el('th', null, h))));
      for (const x of D.sealed) {
        const cells = [x.id, x.kind, x.tier || '', x.collaborator || '', x.size, x.nodes].concat(D.files ? [fileName(x.file || 0) || ''] : []);
        t.append(el('tr', null, ...cells.map((v) => el('td', null, v))));
      }
      box.append(t);
    },
    overview() {
      const box = $('tab-overview');
      box.append(el('h2', null, D.title));
      if (D.summary) box.append(el('h3', null, 'Summary'), el('p', { class: 'turn' }, D.summary));
      if (D.goals && D.goals.length) box.append(el('h3', null, 'Goals'), el('ul', null, ...D.goals.map((g) => el('li', null, g))));
      if (D.files) {
        box.append(el('h3', null, 'Linked files'), el('p', { class: 'hint' }, 'Their graphs, turns and artifacts are on this page, each marked with its link\'s name.'),
          el('table', { class: 'fields' }, ...D.files.slice(1).map((f) => el('tr', null, el('td', null, f.name), el('td', null, f.path)))));
      }
      box.append(el('h3', null, 'This page'), el('table', { class: 'fields' }, ...Object.entries(D.stats).filter(([k]) => k !== 'bytes' && k !== 'parts').map(([k, v]) => el('tr', null, el('td', null, k), el('td', null, v)))));
      box.append(el('p', { class: 'hint' }, `Freshness is measured at ${D.at}. The graph shows the ${D.shown} most important nodes first; ` +
        '"Show more" adds as many again, and search reaches every node and turn.'));
    },
  };

  // ---- search -------------------------------------------------------------------
  const words = (q) => (q.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter((w) => [...w].length >= 2).map((w) => [...w].slice(0, D.maxWord).join(''));
  const decoded = new Map();
  function postings(t) {
    if (!decoded.has(t)) { let d = 0; decoded.set(t, index.postings[t].map((g) => (d += g))); }
    return decoded.get(t);
  }
  function lower(w) {
    let lo = 0, hi = index.terms.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (index.terms[m] < w) lo = m + 1; else hi = m; }
    return lo;
  }
  function docsOf(w, prefix) {
    const out = new Set();
    for (let t = lower(w), seen = 0; t < index.terms.length && seen < 64; t++, seen++) {
      const term = index.terms[t];
      if (prefix ? !term.startsWith(w) : term !== w) break;
      for (const d of postings(t)) out.add(d);
    }
    return out;
  }
  function locateTurn(doc) {
    let lo = 0, hi = D.conversations.length - 1;
    const x = doc - N.length;
    while (lo < hi) { const m = (lo + hi + 1) >> 1; if (convStart[m] <= x) lo = m; else hi = m - 1; }
    return [lo, x - convStart[lo]];
  }
  // The documents holding the most of the query's words (the last word as a prefix),
  // nodes first (most important first), then turns in archive order; `limit` of them.
  function search(q, limit = 200) {
    index = index || block('smg-index');
    const ws = words(q);
    if (!ws.length) return { total: 0, matched: 0, of: 0, hits: [] };
    const score = new Map();
    ws.forEach((w, i) => {
      for (const d of docsOf(w, i === ws.length - 1 && !/\s$/.test(q))) score.set(d, (score.get(d) || 0) + 1);
    });
    let best = 0;
    for (const v of score.values()) if (v > best) best = v;
    const docs = [];
    for (const [d, v] of score) if (v === best) docs.push(d);
    docs.sort((a, b) => a - b);
    const hits = docs.slice(0, limit).map((d) => {
      if (d < N.length) return { kind: 'node', index: d, id: N[d][0], text: N[d][2], file: fileName(D.nodeFiles ? D.nodeFiles[d] : 0) };
      const [c, p] = locateTurn(d);
      const t = turnAt(c, p);
      return { kind: 'turn', conv: c, pos: p, turn: t[0], text: t[5], file: fileName(D.conversations[c].file) };
    });
    return { total: docs.length, matched: best, of: ws.length, hits };
  }
  view.search = search;

  function snippet(text, ws) {
    const low = text.toLowerCase();
    const at = ws.map((w) => low.indexOf(w)).filter((i) => i >= 0).sort((a, b) => a - b)[0] || 0;
    const from = Math.max(0, at - 60);
    const part = (from ? '…' : '') + text.slice(from, from + 220) + (from + 220 < text.length ? '…' : '');
    const box = el('span');
    const re = new RegExp('(' + ws.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') + ')', 'ig');
    let last = 0;
    for (const m of part.matchAll(re)) { box.append(part.slice(last, m.index), el('mark', null, m[0])); last = m.index + m[0].length; }
    box.append(part.slice(last));
    return box;
  }

  let timer = null;
  $('search').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(showResults, 120); });
  $('search').addEventListener('keydown', (e) => { if (e.key === 'Escape') { $('search').value = ''; showResults(); } });
  function showResults() {
    const q = $('search').value;
    const box = clear($('results'));
    const found = search(q, 50);
    box.hidden = !q.trim();
    if (box.hidden) return;
    const ws = words(q);
    box.append(el('div', { class: 'meta result' }, found.total ? `${found.total} results` +
      (found.total > found.hits.length ? `, the first ${found.hits.length} shown` : '') +
      (found.matched < found.of ? ` (matching ${found.matched} of ${found.of} words)` : '') : 'No results'));
    for (const r of found.hits) {
      const row = r.kind === 'node'
        ? el('div', { class: 'result', onclick: () => { box.hidden = true; reveal(r.index); } }, el('span', { class: 'badge' }, N[r.index][1]), r.file ? el('span', { class: 'badge file' }, r.file) : null, snippet(r.text, ws))
        : el('div', { class: 'result', onclick: () => { box.hidden = true; openConversation(r.conv, r.pos); } },
          el('span', { class: 'badge turn' }, 'turn'), r.file ? el('span', { class: 'badge file' }, r.file) : null,
          el('span', { class: 'meta' }, `#${r.turn} ${D.conversations[r.conv].id} `), snippet(r.text, ws));
      box.append(row);
    }
  }

  // ---- start --------------------------------------------------------------------
  view.cy = cytoscape({ container: $('cy'), style: STYLE, minZoom: 0.02, maxZoom: 4 });
  view.cy.on('tap', 'node', (e) => focus(e.target.data('k')));
  view.cy.on('mouseover', 'node', (e) => e.target.addClass('hover'));
  view.cy.on('mouseout', 'node', (e) => e.target.removeClass('hover'));
  shown.add('graph');
  draw(null, () => requestAnimationFrame(() => {
    view.firstRenderMs = Math.round(performance.now() - started);
    view.ready = true;
    document.body.dataset.ready = '1';
  }));
})();

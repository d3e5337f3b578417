// The analysis board of `togyz-probe serve`. It knows no rules: the server
// lists every legal move with the FEN it leads to, and the page only draws
// FENs and follows those lists. Every text from the server or the user goes
// into the page as a text node (textContent), never as markup.
'use strict';

(function () {
  const START = '9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const $ = (id) => document.getElementById(id);

  // ---- DOM helpers: text only ----

  function build(ns, tag, attrs, kids) {
    const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined && v !== false) node.setAttribute(k, String(v));
    }
    for (const kid of kids) {
      if (kid === null || kid === undefined || kid === false) continue;
      node.appendChild(typeof kid === 'object' ? kid : document.createTextNode(String(kid)));
    }
    return node;
  }
  const h = (tag, attrs, ...kids) => build(null, tag, attrs, kids);
  const s = (tag, attrs, ...kids) => build(SVG_NS, tag, attrs, kids);

  // ---- FEN, for drawing only (the server checks every FEN) ----

  /** The board of a PlayStrategy FEN (docs/rules.md), or null. `north[i]`
   * and `south[i]` are hole i + 1 of each row. */
  function parseFen(fen) {
    const f = String(fen).trim().split(/\s+/);
    if (f.length !== 5) return null;
    const rows = f[0].split('/');
    if (rows.length !== 2) return null;
    const row = (text) => {
      const cells = [];
      for (const item of text.split(',')) {
        let m;
        if (item === 't') cells.push({ stones: 0, tuzdyk: true });
        else if ((m = /^([0-9]+)S$/.exec(item))) cells.push({ stones: Number(m[1]), tuzdyk: false });
        else if (/^[1-9]$/.test(item)) {
          for (let i = 0; i < Number(item); i++) cells.push({ stones: 0, tuzdyk: false });
        } else return null;
      }
      return cells.length === 9 ? cells : null;
    };
    const written = row(rows[0]);
    const south = row(rows[1]);
    if (!written || !south || !/^[SN]$/.test(f[3])) return null;
    // The North row is written from its hole 9 down to hole 1.
    return {
      north: written.slice().reverse(),
      south,
      kazan: { S: Number(f[1]), N: Number(f[2]) },
      side: f[3],
    };
  }

  const sideName = (c) => (c === 'S' ? 'South' : c === 'N' ? 'North' : String(c));
  const other = (c) => (c === 'S' ? 'N' : 'S');
  const plies = (n) => (n === 1 ? '1 ply' : `${n} plies`);

  /** The square of a UCI move's origin or landing: `a1`..`i1` are South's
   * holes 1..9, `i2`..`a2` North's holes 1..9. */
  function square(sq) {
    const m = /^([a-i])([12])$/.exec(sq || '');
    if (!m) return null;
    const file = m[1].charCodeAt(0) - 97;
    return m[2] === '1' ? { side: 'S', hole: file + 1 } : { side: 'N', hole: 9 - file };
  }

  // ---- state ----

  const st = {
    fen: START,
    ply: null, // the game's ply shown, or null off the game's line
    lastUci: null,
    answer: null,
    // Every position visited, as a tree: {fen, uci, move, label, ply,
    // parent, kids, last}; `ply` is the game's ply on the game's line, else
    // null; `last` the kid visited last, where → goes.
    root: null,
    node: null,
    dirty: true, // the tree changed: the move list is drawn again
    games: [],
    game: null,
    token: 0,
    loadToken: 0,
    searching: null, // the AbortController of the search under way
    flipped: false,
    limits: null, // GET /v1/limits
  };

  // ---- the server ----

  /** GET /v1/togyzkumalak: the answer object, or an error object. */
  async function ask(fen, seconds, moves, signal) {
    const q = [`fen=${encodeURIComponent(fen.trim().replace(/\s+/g, '_'))}`];
    if (moves && moves.length) q.push(`moves=${encodeURIComponent(moves.join(','))}`);
    q.push(`search_time=${seconds}`);
    return getJson(`v1/togyzkumalak?${q.join('&')}`, signal ? { signal } : undefined);
  }

  async function getJson(url, options) {
    let r;
    try {
      r = await fetch(url, options);
    } catch (e) {
      return { error: `the server cannot be reached (${e.message})`, kind: 'network' };
    }
    let body;
    try {
      body = await r.json();
    } catch (e) {
      body = { error: `the server answered ${r.status} without JSON`, kind: 'http' };
    }
    if (r.status === 503) {
      const retry = r.headers.get('Retry-After');
      body.error = body.error || 'the server is busy';
      if (retry) body.error += `; retry in ${retry} s`;
    }
    if (body && typeof body === 'object') body.httpStatus = r.status;
    return body;
  }

  /** The result for the side to move: `win`, `draw`, `loss` or
   * `unknown` (`result` as `query --json` writes it; else lichess's
   * `category`). */
  function resultOf(a) {
    if (a.result) return a.result;
    const c = a.category || '';
    if (c === 'win' || c === 'draw' || c === 'loss') return c;
    return 'unknown';
  }

  /** A move's result for the mover: the tables give each move's; a search
   * proves its best move's, and when the side to move loses, every move
   * loses. */
  function moveResult(a, m) {
    if (m.result) return m.result;
    const r = a ? resultOf(a) : 'unknown';
    if (a && a.search && (m.move === a.best || r === 'loss') && r !== 'unknown') return r;
    return 'unknown';
  }

  const isError = (a) => !a || (a.kind && a.kind !== 'no_table') || (!a.moves && a.error);

  // ---- the board ----

  // Two layouts of the same board: as the command line draws it (names
  // on the left, kazans on the right), and for narrow screens, where each
  // side's name and kazan go in a bar above North's row and below South's
  // so that the holes get the width.
  const WIDE = { compact: false, x0: 64, pitch: 52, w: 46, top: 26, rowH: 60, gap: 10, kx: 540, kw: 96, width: 640, height: 180 };
  const NARROW = { compact: true, x0: 3, pitch: 52, w: 46, top: 58, rowH: 60, gap: 10, kx: 335, kw: 136, width: 474, height: 250 };
  const narrowQuery = window.matchMedia('(max-width: 560px)');
  let G = narrowQuery.matches ? NARROW : WIDE;

  /** The side whose row is drawn on top: North, as South sees the board,
   * or South when the board is flipped. */
  const topSide = () => (st.flipped ? 'S' : 'N');

  function holeXY(side, hole) {
    // The top row's hole 9 is on the left, the bottom row's hole 1: as the
    // bottom row's player sees the board.
    const top = side === topSide();
    const col = top ? 9 - hole : hole - 1;
    const y = top ? G.top : G.top + G.rowH + G.gap;
    return { x: G.x0 + col * G.pitch, y };
  }

  /** A side's name (marked when it is to move) and its kazan. */
  function drawSide(svg, side, toMove, kazan) {
    const rowY = holeXY(side, 1).y;
    if (!G.compact) {
      svg.appendChild(s('text', { x: 14, y: rowY + G.rowH / 2 + 5, class: toMove ? 'side to-move' : 'side' }, sideName(side)));
      if (toMove) svg.appendChild(s('circle', { cx: 6, cy: rowY + G.rowH / 2, r: 5, class: 'turn' }));
      svg.appendChild(
        s('g', { class: 'kazan', 'data-side': side, 'data-stones': kazan },
          s('rect', { x: G.kx, y: rowY, width: G.kw, height: G.rowH, rx: 12 }),
          s('text', { x: G.kx + G.kw / 2, y: rowY + 17, class: 'klabel' }, 'kazan'),
          s('text', { x: G.kx + G.kw / 2, y: rowY + 46, class: 'kcount' }, kazan))
      );
      return;
    }
    const barY = side === topSide() ? 2 : G.top + 2 * G.rowH + G.gap + 24;
    svg.appendChild(s('text', { x: 24, y: barY + 23, class: toMove ? 'side big to-move' : 'side big' }, sideName(side)));
    if (toMove) svg.appendChild(s('circle', { cx: 10, cy: barY + 17, r: 7, class: 'turn' }));
    svg.appendChild(
      s('g', { class: 'kazan', 'data-side': side, 'data-stones': kazan },
        s('rect', { x: G.kx, y: barY, width: G.kw, height: 34, rx: 10 }),
        s('text', { x: G.kx + 42, y: barY + 23, class: 'klabel' }, 'kazan'),
        s('text', { x: G.kx + 100, y: barY + 26, class: 'kcount' }, kazan))
    );
  }

  function renderBoard() {
    const svg = $('board');
    const b = parseFen(st.fen);
    svg.replaceChildren();
    svg.setAttribute('viewBox', `0 0 ${G.width} ${G.height}`);
    svg.setAttribute('data-fen', st.fen);
    svg.setAttribute('data-flipped', st.flipped ? 1 : 0);
    $('fen-out').value = st.fen;
    if (!b) {
      svg.appendChild(s('text', { x: G.width / 2, y: G.height / 2, 'text-anchor': 'middle', class: 'msg' }, 'not a FEN'));
      return;
    }
    const moves = st.answer && Array.isArray(st.answer.moves) ? st.answer.moves : [];
    const byHole = new Map();
    for (const m of moves) {
      const from = square((m.uci || '').slice(0, 2));
      if (from) byHole.set(`${from.side}${from.hole}`, m);
    }
    const last = st.lastUci ? [square(st.lastUci.slice(0, 2)), square(st.lastUci.slice(2, 4))] : [];
    const isLast = (side, hole, i) => last[i] && last[i].side === side && last[i].hole === hole;
    // Hole numbers: above the top row (9..1), below the bottom one (1..9).
    for (let hole = 1; hole <= 9; hole++) {
      const n = holeXY(topSide(), hole);
      svg.appendChild(s('text', { x: n.x + G.w / 2, y: G.top - 8, class: 'num' }, hole));
      const so = holeXY(other(topSide()), hole);
      svg.appendChild(s('text', { x: so.x + G.w / 2, y: so.y + G.rowH + 17, class: 'num' }, hole));
    }
    for (const side of ['N', 'S']) {
      const toMove = b.side === side;
      drawSide(svg, side, toMove, b.kazan[side]);
      const cells = side === 'N' ? b.north : b.south;
      for (let hole = 1; hole <= 9; hole++) {
        const cell = cells[hole - 1];
        const p = holeXY(side, hole);
        const m = toMove ? byHole.get(`${side}${hole}`) : null;
        const cls = ['hole'];
        if (cell.tuzdyk) cls.push('tuzdyk');
        if (m) cls.push('playable', `r-${moveResult(st.answer, m)}`);
        if (isLast(side, hole, 0)) cls.push('last-from');
        if (isLast(side, hole, 1)) cls.push('last-to');
        const owner = sideName(other(side));
        const label = cell.tuzdyk
          ? `${sideName(side)}'s hole ${hole}: ${owner}'s tuzdyk`
          : `${sideName(side)}'s hole ${hole}: ${cell.stones} stone${cell.stones === 1 ? '' : 's'}` +
            (m ? `; play ${m.move}` : '');
        const g = s(
          'g',
          {
            class: cls.join(' '),
            'data-side': side,
            'data-hole': hole,
            'data-stones': cell.stones,
            'data-tuzdyk': cell.tuzdyk ? 1 : 0,
            'data-uci': m ? m.uci : null,
            tabindex: m ? 0 : null,
            role: m ? 'button' : null,
            'aria-label': label,
          },
          s('title', {}, label),
          s('rect', { x: p.x, y: p.y, width: G.w, height: G.rowH, rx: 10 }),
          s(
            'text',
            { x: p.x + G.w / 2, y: p.y + G.rowH / 2 + 8, class: 'count' },
            cell.tuzdyk ? 'X' : cell.stones === 0 ? '' : cell.stones
          )
        );
        if (m) {
          g.addEventListener('click', () => playMove(m));
          g.addEventListener('keydown', (e) => {
            if (e.key === 'Enter' || e.key === ' ') {
              e.preventDefault();
              playMove(m);
            }
          });
        }
        svg.appendChild(g);
      }
    }
    // As the command line does: who owns each tuzdyk, in words.
    const notes = [];
    for (const side of ['S', 'N']) {
      const cells = side === 'N' ? b.north : b.south;
      const i = cells.findIndex((c) => c.tuzdyk);
      if (i >= 0) notes.push(`X: ${sideName(other(side))}'s tuzdyk in ${sideName(side)}'s hole ${i + 1}`);
    }
    $('tuzdyks').textContent = notes.join('; ');
  }

  // ---- the answer: verdict, proof, moves, line ----

  function inWords(result, dtm, dtc) {
    const verb = { win: 'wins', loss: 'loses', draw: 'draws' }[result] || 'is unknown';
    if (result === 'draw') return verb;
    if (dtm !== null && dtm !== undefined) return `${verb} in ${plies(dtm)}`;
    if (dtc !== null && dtc !== undefined) return `${verb}; converts in ${plies(dtc)}`;
    return verb;
  }

  function count(n) {
    if (n < 1e4) return String(n);
    if (n < 1e5) return `${(n / 1e3).toFixed(1)}k`;
    if (n < 1e6) return `${(n / 1e3).toFixed(0)}k`;
    return `${(n / 1e6).toFixed(1)}M`;
  }

  /** What search or the kazans showed, as above.rs words it. */
  function shownText(side, proven) {
    if (!proven) return '';
    if (proven.lower === 'draw') return `${sideName(side)} can hold at least a draw`;
    if (proven.upper === 'draw') return `${sideName(side)} cannot win`;
    if (proven.lower === 'win') return `${sideName(side)} wins`;
    if (proven.upper === 'loss') return `${sideName(side)} loses`;
    return 'neither side\u2019s win or draw is shown';
  }

  function setBusy(busy, text) {
    document.body.dataset.state = busy ? 'loading' : 'ready';
    $('verdict').setAttribute('aria-busy', busy ? 'true' : 'false');
    $('verdict').querySelector('.spinner').hidden = !busy;
    if (text !== undefined) $('verdict-text').textContent = text;
  }

  function renderAnswer(a, searching) {
    const verdict = $('verdict');
    const proof = $('proof');
    const tbody = $('moves').querySelector('tbody');
    const pv = $('pv');
    proof.textContent = '';
    pv.textContent = '';
    tbody.replaceChildren();
    verdict.className = '';
    if (isError(a)) {
      setBusy(false, `Error: ${a && a.error ? a.error : 'no answer'}`);
      verdict.className = 'error';
      $('moves').hidden = true;
      return;
    }
    const side = a.side || (parseFen(st.fen) || {}).side;
    const result = resultOf(a);
    const moves = Array.isArray(a.moves) ? a.moves : [];
    const source = a.source || (a.kind === 'no_table' ? 'none' : '');
    let text;
    if (moves.length === 0 && (a.game_over || source === 'game-over' || source === 'tables' || a.dtm === 0 || a.kind === 'no_table')) {
      // No legal move: the game is over (docs/rules.md, "The end of the game").
      const winner = result === 'win' ? side : result === 'loss' ? other(side) : null;
      text =
        result === 'draw'
          ? 'Game over: a draw.'
          : winner
            ? `Game over: ${sideName(winner)} wins.`
            : 'Game over: no legal move.';
    } else if (source === 'tables' && !a.search) {
      text =
        result === 'draw'
          ? `${sideName(side)} to move: a draw with best play.`
          : `${sideName(side)} to move ${inWords(result, a.dtm, a.dtc)}.`;
    } else if (source === 'none' && searching) {
      text = `${sideName(side)} to move, above the tables (${a.stones} stones): searching, up to ${$('search-time').value} s…`;
    } else if (source === 'none') {
      text = `${sideName(side)} to move; no table covers this position (${a.stones} stones).`;
      const shown = shownText(side, a.proven);
      if (!searching) proof.textContent = a.error ? `${a.error}.` : '';
      if (shown && !searching) proof.textContent += ` The kazans alone show: ${shown}.`;
    } else {
      // Above the tables: what proof search showed.
      const stats = a.search || {};
      const how = `${count(stats.nodes || 0)} nodes, ${Number(stats.seconds || 0).toFixed(1)} s; tables up to ${stats.table_stones} stones`;
      if (result === 'win' || result === 'draw' || result === 'loss') {
        const verb = { win: 'wins', draw: 'draws', loss: 'loses' }[result];
        text = `${sideName(side)} to move ${verb} (proven by search).`;
        const bestVerb = { win: 'wins', draw: 'holds the draw', loss: 'loses like every move' }[result];
        proof.textContent = `Above the tables (${a.stones} stones), search proved it: ${how}.` +
          (a.best ? ` ${a.best} ${bestVerb}.` : '');
      } else {
        // The time the search took: the server may cap what was asked.
        text = `Not proven in ${Number(stats.seconds || 0).toFixed(1)} s: ${shownText(side, a.proven)}.`;
        proof.textContent = `Above the tables (${a.stones} stones): ${how}.`;
      }
    }
    verdict.className = `v-${result}`;
    setBusy(!!searching, text);
    if (searching) verdict.className = 'v-unknown';

    $('moves').hidden = moves.length === 0;
    // A search answer names one proving move: it goes first.
    const ordered = a.best ? moves.filter((m) => m.move === a.best).concat(moves.filter((m) => m.move !== a.best)) : moves;
    for (const m of ordered) {
      const r = moveResult(a, m);
      const label = { win: 'Win', draw: 'Draw', loss: 'Loss', unknown: searching ? '…' : '?' }[r] || r;
      let dist = '';
      if (m.dtm !== null && m.dtm !== undefined) dist = `DTM ${m.dtm}`;
      else if (m.dtc !== null && m.dtc !== undefined) dist = `DTC ${m.dtc}`;
      const tr = h(
        'tr',
        { class: `r-${r}`, 'data-uci': m.uci, 'data-move': m.move, tabindex: 0, title: `play ${m.move}` },
        h('td', { class: 'mv' }, m.move, conversion(m)),
        h('td', { class: 'uci' }, m.uci),
        h('td', { class: 'res' }, h('span', { class: `badge r-${r}` }, label)),
        h('td', { class: 'dist' }, dist)
      );
      tr.addEventListener('click', () => playMove(m));
      tr.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') playMove(m);
      });
      tbody.appendChild(tr);
    }
    if (Array.isArray(a.pv) && a.pv.length) {
      pv.appendChild(h('span', { class: 'pv-label' }, result === 'draw' ? 'Drawing line: ' : 'Best line: '));
      pv.appendChild(h('span', { class: 'pv-moves' }, a.pv.join(' ')));
    }
  }

  /** What a move converts, as the server lists it: stones captured, a
   * tuzdyk made, stones fed to tuzdyks, the end of the game. */
  function conversion(m) {
    const parts = [];
    const words = [];
    if (m.tuzdyk) {
      parts.push('tuzdyk');
      words.push('makes a tuzdyk');
    }
    if (m.capture > 0) {
      parts.push(`+${m.capture}`);
      words.push(`takes ${m.capture} stone${m.capture === 1 ? '' : 's'}`);
    }
    if (m.feed > 0) {
      parts.push(`feeds ${m.feed}`);
      words.push(`sows ${m.feed} into tuzdyks`);
    }
    if (m.game_over) {
      parts.push('ends');
      words.push('ends the game');
    }
    return parts.length ? h('span', { class: 'conv', title: words.join(', ') }, parts.join(' ')) : null;
  }

  // ---- navigation: the tree of positions ----

  /** A position reached by `uci` (`move` in traditional notation) from
   * `parent`, added to its kids; a root without a parent. */
  function newNode(fen, parent, extra) {
    const n = Object.assign({ fen, uci: null, move: null, label: null, ply: null, parent: parent || null, kids: [], last: null }, extra || {});
    if (parent) parent.kids.push(n);
    st.dirty = true;
    return n;
  }

  function setRoot(fen) {
    st.root = newNode(fen, null);
    return st.root;
  }

  /** The kid a line goes on with: the game's move on the game's line,
   * else the first played. */
  const mainKid = (n) => n.kids.find((k) => k.ply !== null) || n.kids[0] || null;

  /** Shows `node`'s position; `first` is its tables-only answer when
   * already asked. */
  function show(node, first) {
    // An exported record is of the line it was made on: gone as the page
    // moves on.
    if (node !== st.node) $('export-box').hidden = true;
    st.node = node;
    if (node.parent) node.parent.last = node;
    st.fen = node.fen;
    st.ply = node.ply;
    st.lastUci = node.uci;
    st.answer = null;
    renderBoard();
    if (st.dirty) renderLine();
    renderGameCursor();
    writeHash();
    analyse(first);
  }

  async function analyse(first) {
    const token = ++st.token;
    if (st.searching) {
      st.searching.abort();
      st.searching = null;
    }
    const fen = st.fen;
    const seconds = Number($('search-time').value);
    setBusy(true, 'Asking the tables…');
    // First the tables alone: instant, and it lists the legal moves even
    // above the tables, so that the board can be played at once.
    const a = first || (await ask(fen, 0));
    if (token !== st.token) return;
    st.answer = a;
    const above = a && a.kind === 'no_table' && Array.isArray(a.moves) && a.moves.length > 0;
    renderBoard();
    renderAnswer(a, above && seconds > 0);
    if (!above || seconds <= 0) return;
    // Stepping through positions quickly should not start a search for
    // each: wait a moment, and drop the search when the page moves on.
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (token !== st.token) return;
    if (st.searching) st.searching.abort();
    st.searching = new AbortController();
    const b = await ask(fen, seconds, null, st.searching.signal);
    if (token !== st.token) return;
    st.searching = null;
    if (isError(b)) {
      renderAnswer(a, false);
      $('proof').textContent = `Search: ${b.error || 'no answer'}`;
      return;
    }
    st.answer = b;
    renderBoard();
    renderAnswer(b, false);
  }

  /** The node of the game's ply `ply`. */
  function gameNode(ply) {
    let n = st.root;
    while (n && n.ply !== ply) n = n.kids.find((k) => k.ply !== null) || null;
    return n;
  }

  /** The player moves the board (a move, a step, the move list): a
   * message about what was pasted no longer stands beside it. */
  function go(node) {
    showError('');
    show(node);
  }

  function gotoPly(ply) {
    const g = st.game;
    if (!g) return;
    const n = gameNode(Math.max(0, Math.min(g.moves.length, ply)));
    if (n) go(n);
  }

  function playMove(m) {
    const kid = st.node.kids.find((k) => k.fen === m.fen) || newNode(m.fen, st.node, { uci: m.uci, move: m.move });
    go(kid);
  }

  function stepBack() {
    if (st.node && st.node.parent) go(st.node.parent);
  }

  function stepForward() {
    const n = st.node;
    if (!n || !n.kids.length) return;
    // On the game's line, the game's next move; else where → went last.
    go(n.ply !== null ? mainKid(n) : n.last || n.kids[0]);
  }

  function stepFirst() {
    if (st.root && st.node !== st.root) go(st.root);
  }

  function stepLast() {
    let n = st.node;
    if (!n) return;
    const onGame = n.ply !== null;
    while (n.kids.length) n = onGame ? mainKid(n) : n.last || n.kids[0];
    if (n !== st.node) go(n);
  }

  function backToGame() {
    let n = st.node;
    while (n && n.ply === null) n = n.parent;
    if (n) go(n);
  }

  /** The number and side of the move from `parent` to `kid`: the
   * record's own for a game's move, else the FEN's. */
  function moveNo(parent, kid) {
    const f = String(parent.fen).trim().split(/\s+/);
    const side = f[3] === 'N' ? 'N' : 'S';
    const m = kid.label && /^([0-9]+)\./.exec(kid.label);
    return { num: m ? Number(m[1]) : Number(f[4]) || 1, side };
  }

  /** A move of the tree as a button of the move list: a game's move with
   * its verdict and mark, as annotate gave them. */
  function moveButton(n) {
    const g = st.game;
    const gm = g && n.ply !== null && n.ply > 0 ? g.moves[n.ply - 1] : null;
    const text = n.move || '';
    let b;
    if (gm) {
      const e = gm.after;
      const chip = e
        ? h('span', { class: `chip ${e.winner === 'S' ? 's' : e.winner === 'N' ? 'n' : 'd'}` },
          `${e.winner === 'draw' ? '=' : e.winner}${e.dtm !== null && e.dtm !== undefined ? ` ${e.dtm}` : ''}`)
        : null;
      b = h(
        'button',
        { type: 'button', class: gm.mistake ? 'mv mistake' : 'mv', 'data-ply': n.ply, title: gm.mistake ? `${gm.mistake}${gm.better ? `: ${gm.better}` : ''}` : standing(e) },
        h('span', { class: 'text' }, text),
        gm.mistake ? h('span', { class: 'mark' }, '??') : null,
        chip
      );
    } else {
      b = h('button', { type: 'button', class: 'mv free', 'data-fen': n.fen, title: `play ${text}` }, h('span', { class: 'text' }, text));
    }
    b.addEventListener('click', () => go(n));
    n.button = b;
    return b;
  }

  /** The line from `parent` by `kid` on one line of text: its moves,
   * with the variations on its way in parentheses. */
  function inlineLine(parent, kid) {
    const out = h('span', { class: 'line' });
    let n = parent;
    let k = kid;
    let first = true;
    while (k) {
      const { num, side } = moveNo(n, k);
      if (side === 'S' || first) out.appendChild(h('span', { class: 'no' }, side === 'S' ? `${num}.` : `${num}…`));
      out.appendChild(moveButton(k));
      if (!first) {
        for (const o of n.kids.filter((x) => x !== k)) out.appendChild(h('span', { class: 'sub' }, '(', inlineLine(n, o), ')'));
      }
      first = false;
      n = k;
      k = mainKid(n);
    }
    return out;
  }

  /** The move list: the main line two plies a row, each variation on a
   * line of its own under the move it replaces. */
  function renderLine() {
    st.dirty = false;
    const list = $('movelist');
    list.replaceChildren();
    const wrap = $('line-wrap');
    wrap.hidden = !st.root || st.root.kids.length === 0;
    if (wrap.hidden) return;
    let row = null;
    let n = st.root;
    while (n.kids.length) {
      const kid = mainKid(n);
      const { num, side } = moveNo(n, kid);
      if (side === 'S' || !row) {
        row = h('li', {}, h('span', { class: 'no' }, `${num}.`));
        if (side === 'N') row.appendChild(h('span', { class: 'mv empty' }, '…'));
        list.appendChild(row);
      }
      row.appendChild(moveButton(kid));
      const others = n.kids.filter((k) => k !== kid);
      for (const o of others) list.appendChild(h('li', { class: 'var' }, '(', inlineLine(n, o), ')'));
      if (others.length) row = null;
      n = kid;
    }
  }

  // ---- games ----

  const moveText = (label) => String(label).replace(/^[0-9]+\.(\.\.)?\s*/, '');

  /** Who wins at each ply: `S`, `N`, `draw`, or null where not settled. */
  function winners(g) {
    const out = [];
    for (let p = 0; p <= g.moves.length; p++) {
      const e = p === 0 ? g.moves[0] && g.moves[0].before : g.moves[p - 1].after;
      out.push(e ? e.winner : null);
    }
    return out;
  }

  function standing(e) {
    if (!e) return 'unknown';
    const who = e.winner === 'S' ? 'South wins' : e.winner === 'N' ? 'North wins' : 'draw';
    if (e.dtm === 0) return `${who} (game over)`;
    if (e.dtm !== null && e.dtm !== undefined) return `${who} in ${e.dtm}`;
    if (e.source === 'search') return `${who} (search)`;
    return who;
  }

  /** The verdict of the position shown, after a record failed to load. */
  function restore() {
    if (st.answer) renderAnswer(st.answer, false);
    else setBusy(false, '');
  }

  function progress(text) {
    $('progress').textContent = text;
    $('progress').hidden = !text;
  }

  /** The search of an annotation: a number of nodes a position, so that
   * the same record gets the same verdicts each time (a time would prove
   * more or less as the machine is busy); none with "tables only". */
  function annotateSearch() {
    if (Number($('search-time').value) <= 0) return { query: 'search_time=0', words: 'tables only' };
    const nodes = (st.limits && st.limits.search_nodes) || 1000000;
    return { query: `search_nodes=${nodes}`, words: `search up to ${nodes.toLocaleString('en')} nodes a position` };
  }

  /** Reads the annotation's NDJSON as it comes: each game's line is shown
   * as soon as the server has annotated it, the first readable game on
   * the board at once. */
  async function loadRecord(text, then) {
    const token = ++st.loadToken;
    setBusy(true, 'Annotating the game…');
    showError('');
    const search = annotateSearch();
    const started = performance.now();
    const secs = () => ((performance.now() - started) / 1000).toFixed(1);
    progress(`Annotating (${search.words})…`);
    let r;
    try {
      r = await fetch(`v1/annotate?${search.query}&format=ndjson`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        body: text,
      });
    } catch (e) {
      restore();
      progress('');
      showError(`The record could not be read: the server cannot be reached (${e.message})`);
      return;
    }
    if (!r.ok) {
      let j = {};
      try {
        j = await r.json();
      } catch (e) {
        j = { error: `the server answered ${r.status}` };
      }
      const retry = r.status === 503 && r.headers.get('Retry-After');
      restore();
      progress('');
      showError(`The record could not be read: ${j.error || 'no game in it'}${retry ? `; retry in ${retry} s` : ''}`);
      return;
    }
    st.games = [];
    const select = $('game-select');
    select.replaceChildren();
    select.hidden = true;
    let plies = 0;
    let shown = false;
    let failure = '';
    const take = async (line) => {
      if (!line.trim()) return;
      let g;
      try {
        g = JSON.parse(line);
      } catch (e) {
        return;
      }
      if (!g.game) {
        // The server's last line when the annotation failed on the way.
        failure = g.error || 'the annotation stopped';
        return;
      }
      st.games.push(g);
      plies += g.plies || 0;
      const i = st.games.length - 1;
      const t = g.tags || {};
      const who = t.White || t.Black ? `${t.White || '?'} – ${t.Black || '?'}` : t.Event || 'moves';
      select.appendChild(h('option', { value: i }, `Game ${g.game || i + 1}: ${who}${g.result ? `, ${g.result}` : ''}${g.error ? ' (error)' : ''}`));
      select.hidden = st.games.length < 2;
      progress(`Annotating (${search.words}): ${st.games.length} game${st.games.length === 1 ? '' : 's'} so far, ${plies} plies, ${secs()} s…`);
      if (!shown && !g.error) {
        shown = true;
        select.value = String(i);
        await selectGame(i, then);
      }
    };
    const reader = r.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (e) {
        failure = `the connection broke (${e.message})`;
        break;
      }
      if (token !== st.loadToken) {
        reader.cancel().catch(() => {});
        return;
      }
      if (chunk.done) break;
      buf += decoder.decode(chunk.value, { stream: true });
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        await take(line);
      }
    }
    await take(buf + decoder.decode());
    const n = st.games.length;
    progress(n ? `${n} game${n === 1 ? '' : 's'}, ${plies} plies, annotated in ${secs()} s (${search.words}).` : '');
    if (!shown) {
      if (n) {
        select.value = '0';
        await selectGame(0);
      } else {
        restore();
        showError(`The record could not be read: ${failure || 'no game in it'}`);
        return;
      }
    }
    if (failure) showError(`The annotation stopped after ${n} game${n === 1 ? '' : 's'}: ${failure}`);
  }

  async function selectGame(i, then) {
    const j = st.games[i];
    if (j.error) {
      st.game = null;
      $('game').hidden = true;
      restore();
      showError(`Game ${j.game || i + 1} (line ${j.line}): ${j.error}`);
      writeHash();
      return;
    }
    const moves = j.moves || [];
    const texts = moves.map((m) => moveText(m.label));
    const start = moves.length ? moves[0].fen_before : (j.tags && j.tags.FEN) || START;
    let finalFen = start;
    if (moves.length) {
      // The position after the last move: the server's own move list from
      // the one before names it (the page plays no move itself).
      const lastFen = moves[moves.length - 1].fen_before;
      const a = await ask(lastFen, 0);
      const want = texts[texts.length - 1].replace(/X/g, 'x');
      const m = (a.moves || []).find((x) => x.move === want || x.uci === want);
      if (!m) {
        restore();
        showError(`The game's last move ${want} is not among the server's moves: ${a.error || ''}`);
        return;
      }
      finalFen = m.fen;
    }
    st.game = { json: j, moves, texts, start, finalFen, index: i };
    // The game's line in the tree: ply 0 at the root.
    let n = setRoot(start);
    n.ply = 0;
    moves.forEach((m, k) => {
      const fen = k + 1 < moves.length ? moves[k + 1].fen_before : finalFen;
      n = newNode(fen, n, { uci: m.uci || null, move: texts[k].replace(/X/g, 'x'), label: m.label, ply: k + 1 });
    });
    renderGame();
    $('game').hidden = false;
    if (then) then();
    else gotoPly(moves.length);
  }

  function renderGame() {
    const g = st.game;
    const j = g.json;
    const t = j.tags || {};
    const head = [];
    if (t.White || t.Black) head.push(`${t.White || '?'} (South) – ${t.Black || '?'} (North)`);
    for (const k of ['Event', 'Site', 'Date']) if (t[k]) head.push(t[k]);
    if (j.result) head.push(`recorded ${j.result}`);
    $('game-head').textContent = head.join(' · ');
    const sum = [];
    sum.push(`${plies(g.moves.length)}`);
    if (j.first_settled !== null && j.first_settled !== undefined) {
      const who = { S: 'South', N: 'North', draw: 'neither (a draw)' }[j.should_win] || 'unknown';
      sum.push(`settled from ply ${j.first_settled}; should have won: ${who}`);
    } else sum.push('no position settled by the tables or the search');
    sum.push(`${j.mistakes} result-changing move${j.mistakes === 1 ? '' : 's'}`);
    if (j.end) sum.push(`end: ${j.end}`);
    $('game-summary').textContent = sum.join('; ') + '.';

    // The strip: one cell per position, coloured by who wins there.
    const strip = $('strip');
    strip.replaceChildren(s('rect', { x: 0, y: 8, width: 400, height: 22, class: 'frame' }));
    const w = winners(g);
    const n = w.length;
    const cw = 400 / n;
    w.forEach((who, p) => {
      const cls = who === 'S' ? 's' : who === 'N' ? 'n' : who === 'draw' ? 'd' : 'u';
      const label = `ply ${p}: ${who === 'S' ? 'South wins' : who === 'N' ? 'North wins' : who === 'draw' ? 'a draw' : 'not settled'}`;
      // Unsettled plies are a thin line, settled ones the full height.
      const full = cls !== 'u';
      const cell = s('rect', { x: p * cw, y: full ? 8 : 17, width: cw + 0.05, height: full ? 22 : 4, class: `cell ${cls}`, 'data-ply': p }, s('title', {}, label));
      cell.addEventListener('click', () => gotoPly(p));
      strip.appendChild(cell);
    });
    g.moves.forEach((m, k) => {
      if (m.mistake) {
        const x = (k + 1) * cw + cw / 2;
        strip.appendChild(s('path', { d: `M${x - 4} 0 L${x + 4} 0 L${x} 7 Z`, class: 'mistake' }, s('title', {}, `${m.label}?? ${m.mistake}`)));
      }
    });
    strip.appendChild(s('rect', { id: 'strip-cursor', x: 0, y: 7, width: cw, height: 24, class: 'cursor' }));

    st.dirty = true;
  }

  function renderGameCursor() {
    const g = st.game;
    $('to-game').hidden = !g || st.ply !== null;
    for (const b of document.querySelectorAll('#movelist .mv.current')) b.classList.remove('current');
    const b = st.node && st.node.button;
    if (b && b.isConnected) {
      b.classList.add('current');
      // Scroll the list only, never the page.
      const list = $('movelist');
      const row = b.closest('li') || b;
      if (row.offsetTop < list.scrollTop) list.scrollTop = row.offsetTop;
      else if (row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = row.offsetTop + row.offsetHeight - list.clientHeight;
      }
    }
    if (!g) return;
    const cursor = $('strip-cursor');
    const note = $('move-note');
    if (st.ply === null) {
      if (cursor) cursor.setAttribute('visibility', 'hidden');
      note.textContent = 'A variation off the game (“back to the game” returns).';
      return;
    }
    if (cursor) {
      cursor.setAttribute('visibility', 'visible');
      cursor.setAttribute('x', String((st.ply * 400) / (g.moves.length + 1)));
    }
    if (st.ply === 0) {
      $('movelist').scrollTop = 0;
      const e = g.moves[0] && g.moves[0].before;
      note.textContent = `Start of the game: ${e ? standing(e) : 'not settled'}.`;
    } else {
      const m = g.moves[st.ply - 1];
      const change = `${standing(m.before)} → ${standing(m.after)}`;
      note.textContent = m.mistake
        ? `${m.label}?? ${m.mistake}${m.better ? `: ${m.better}` : ''} (${change})`
        : `${m.label}: ${change}`;
    }
  }

  // ---- the URL: #fen=... or #game=...&ply=... ----

  const enc = (fen) => fen.trim().replace(/\s+/g, '_');
  const dec = (text) => decodeURIComponent(text).replace(/_/g, ' ');

  /** The game as a record annotate reads back: a plain move list from the
   * start position; from a set-up position, a `[FEN]` tag and then the
   * moves with the mover's kazan after each, since a tagged record must
   * write them (read off the FENs, not computed). */
  function recordOf(start, texts, withKazans) {
    if (start === START) return texts.join(' ');
    // Numbered from the FEN's move number, as PlayOK numbers such a game.
    const f = start.trim().split(/\s+/);
    let num = Number(f[4]) || 1;
    let side = f[3] === 'N' ? 'N' : 'S';
    const words = [];
    withKazans.forEach((t, k) => {
      if (side === 'S' || k === 0) words.push(side === 'S' ? `${num}.` : `${num}...`);
      words.push(t);
      if (side === 'N') num += 1;
      side = side === 'S' ? 'N' : 'S';
    });
    return `[FEN "${start}"]\n\n${words.join(' ')}\n`;
  }

  function urlMoves(g) {
    if (g.start === START) return g.texts;
    return g.texts.map((t, k) => {
      const at = (ply) => (ply < g.moves.length ? g.moves[ply].fen_before : g.finalFen);
      const before = parseFen(at(k));
      const after = parseFen(at(k + 1));
      if (!before || !after || /\(/.test(t)) return t;
      return `${t}(${after.kazan[before.side]})`;
    });
  }

  function writeHash() {
    const p = [];
    if (st.game) {
      p.push(`game=${urlMoves(st.game).join(',')}`);
      if (st.game.start !== START) p.push(`start=${enc(st.game.start)}`);
      if (st.ply !== null) p.push(`ply=${st.ply}`);
    }
    if (!st.game || st.ply === null) p.push(`fen=${enc(st.fen)}`);
    const hash = `#${p.join('&')}`;
    st.hash = hash;
    if (location.hash !== hash) history.replaceState(null, '', hash);
    $('share').setAttribute('href', hash);
  }

  function readParams(text) {
    const out = {};
    for (const part of text.replace(/^[#?]/, '').split('&')) {
      const i = part.indexOf('=');
      if (i > 0) {
        try {
          out[part.slice(0, i)] = decodeURIComponent(part.slice(i + 1));
        } catch (e) {
          out[part.slice(0, i)] = part.slice(i + 1);
        }
      }
    }
    return out;
  }

  async function applyParams(p) {
    if (p.game !== undefined) {
      const texts = p.game.split(',').filter(Boolean);
      const start = p.start ? dec(p.start) : START;
      const record = recordOf(start, texts.map((t) => t.replace(/\(.*$/, '')), texts);
      const fen = p.fen ? dec(p.fen) : null;
      await loadRecord(record, () => {
        const ply = p.ply !== undefined ? Number(p.ply) : null;
        if (fen && ply === null) {
          // A position off the game: after the game's end, as far as the
          // link tells.
          show(newNode(fen, gameNode(st.game.moves.length)));
        } else gotoPly(Number.isFinite(ply) && ply !== null ? ply : st.game.moves.length);
      });
      return;
    }
    leaveGame();
    show(setRoot(p.fen ? dec(p.fen) : START));
  }

  function leaveGame() {
    st.game = null;
    $('game').hidden = true;
    progress('');
  }

  // ---- input ----

  function showError(text) {
    const e = $('error');
    e.textContent = text;
    e.hidden = !text;
  }

  async function loadText(raw) {
    const text = raw.trim();
    showError('');
    if (!text) return;
    // A link to the board, or just its `#...` part.
    const link = /^(?:https?:\/\/\S*?)?([#?]\S*)$/.exec(text);
    if (link) {
      await applyParams(readParams(link[1]));
      return;
    }
    const firstLine = text.split(/\r?\n/)[0].trim();
    if (!firstLine.startsWith('[') && firstLine.includes('/')) {
      // A FEN: five fields, then perhaps moves played from it.
      const fields = text.split(/\s+/);
      const fen = fields.slice(0, 5).join(' ');
      const moves = fields.slice(5).filter((m) => !/^[0-9]+\.+$/.test(m));
      // Asked before anything changes: a bad FEN or move leaves the board
      // as it was, with the server's message.
      const a = await ask(fen, 0, moves);
      if (isError(a)) {
        // `move_index` is 1-based already, as the message's "move 2 of 2".
        showError(`${a.error || 'no answer'}${a.move_index !== undefined ? ` (move ${a.move_index})` : ''}`);
        return;
      }
      leaveGame();
      let node = setRoot(a.start || fen);
      if (moves.length === 0) {
        show(node, a);
        return;
      }
      // The moves as a line of the move list: each one's position and
      // UCI from the server's list of the position before.
      for (const text of a.played || []) {
        const b = await ask(node.fen, 0);
        const m = (b.moves || []).find((x) => x.move === text);
        if (!m) break;
        node = newNode(m.fen, node, { uci: m.uci, move: m.move });
      }
      show(node);
      return;
    }
    await loadRecord(text);
  }

  function init() {
    $('load').addEventListener('submit', (e) => {
      e.preventDefault();
      loadText($('paste').value);
    });
    $('start').addEventListener('click', () => {
      leaveGame();
      showError('');
      show(setRoot(START));
    });
    $('flip').addEventListener('click', () => {
      st.flipped = !st.flipped;
      $('flip').setAttribute('aria-pressed', st.flipped ? 'true' : 'false');
      renderBoard();
    });
    $('copy-fen').addEventListener('click', () => copyText(st.fen, $('copy-note'), 'FEN copied'));
    $('export').addEventListener('click', () => {
      const text = exportRecord();
      const box = $('export-box');
      box.value = text;
      box.hidden = false;
      copyText(text, $('copy-note'), 'record copied');
    });
    $('search-time').addEventListener('change', () => analyse());
    narrowQuery.addEventListener('change', () => {
      G = narrowQuery.matches ? NARROW : WIDE;
      renderBoard();
    });
    $('game-select').addEventListener('change', (e) => selectGame(Number(e.target.value)));
    $('first').addEventListener('click', stepFirst);
    $('back').addEventListener('click', stepBack);
    $('forward').addEventListener('click', stepForward);
    $('last').addEventListener('click', stepLast);
    $('to-game').addEventListener('click', backToGame);
    $('share').addEventListener('click', (e) => {
      e.preventDefault();
      copyText(location.href, $('copy-note'), 'link copied');
    });
    document.addEventListener('keydown', (e) => {
      const tag = (e.target && e.target.tagName) || '';
      if (tag === 'TEXTAREA' || tag === 'INPUT' || tag === 'SELECT' || e.altKey || e.ctrlKey || e.metaKey) return;
      const act = { ArrowLeft: stepBack, ArrowRight: stepForward, Home: stepFirst, End: stepLast }[e.key];
      if (act) {
        e.preventDefault();
        act();
      }
    });
    window.addEventListener('hashchange', () => {
      if (location.hash !== st.hash) applyParams(readParams(location.hash));
    });
    const params = Object.assign(readParams(location.search), readParams(location.hash));
    readLimits().then(() => applyParams(params));
  }

  /** What the server allows (GET /v1/limits): the search times past its
   * cap are not offered, since it would answer them in its own time. */
  async function readLimits() {
    const j = await getJson('v1/limits');
    if (!j || typeof j.search_time !== 'number') return;
    st.limits = j;
    const select = $('search-time');
    const chosen = Number(select.value);
    for (const o of [...select.options]) if (Number(o.value) > j.search_time) o.remove();
    const values = [...select.options].map((o) => Number(o.value));
    if (j.search_time > 0 && !values.includes(j.search_time)) {
      select.appendChild(h('option', { value: j.search_time }, `${j.search_time} s`));
    }
    if (chosen > j.search_time) select.value = String(j.search_time);
  }

  /** Copies `text`, and says so in `note` for a moment (or that the
   * browser would not). */
  async function copyText(text, note, done) {
    let ok = false;
    try {
      if (navigator.clipboard && navigator.clipboard.writeText) {
        await navigator.clipboard.writeText(text);
        ok = true;
      }
    } catch (e) {
      ok = false;
    }
    note.textContent = ok ? done : 'the browser would not copy: select it and copy';
    note.hidden = false;
    clearTimeout(copyText.timer);
    copyText.timer = setTimeout(() => {
      note.hidden = true;
    }, 2500);
  }

  /** The line shown (from the first position through this one, and on
   * as → would go) as a record in PlayOK's text: a `[FEN]` tag for a
   * set-up position, each move numbered, the mover's kazan after each
   * move that adds to it, `X` for a tuzdyk. `annotate` reads it back. */
  function exportRecord() {
    const path = [];
    for (let n = st.node; n && n.parent; n = n.parent) path.unshift(n);
    let n = st.node;
    while (n && n.kids.length) {
      n = n.ply !== null ? mainKid(n) : n.last || n.kids[0];
      path.push(n);
    }
    const start = st.root.fen;
    const tags = ['[Event "togyz-tb analysis board"]'];
    const g = st.game && st.game.json;
    if (g && g.tags) {
      for (const k of ['White', 'Black', 'Date']) if (g.tags[k]) tags.push(`[${k} "${String(g.tags[k]).replace(/"/g, "'")}"]`);
    }
    if (start !== START) tags.push(`[FEN "${start}"]`);
    const words = [];
    // Numbered on from the first move's number, as a record must be.
    const first = path.length ? moveNo(path[0].parent, path[0]) : { num: 1, side: 'S' };
    path.forEach((node, k) => {
      const before = parseFen(node.parent.fen);
      const after = parseFen(node.fen);
      const ply = k + (first.side === 'N' ? 1 : 0);
      const num = first.num + Math.floor(ply / 2);
      const side = ply % 2 === 0 ? 'S' : 'N';
      if (side === 'S' || words.length === 0) words.push(side === 'S' ? `${num}.` : `${num}...`);
      let text = String(node.move || '').replace(/x$/, 'X');
      if (before && after && after.kazan[before.side] !== before.kazan[before.side] && !/X$/.test(text)) {
        text += `(${after.kazan[before.side]})`;
      }
      words.push(text);
    });
    return `${tags.join('\n')}\n\n${words.join(' ')}${words.length ? ' ' : ''}*\n`;
  }

  init();
})();

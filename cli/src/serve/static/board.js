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
    back: [], // positions before this one off the game's line: {fen, ply, lastUci}
    fwd: [],
    games: [],
    game: null,
    token: 0,
    searching: null, // the AbortController of the search under way
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

  function holeXY(side, hole) {
    // North's hole 9 is on the left, South's hole 1: as South sees the board.
    const col = side === 'N' ? 9 - hole : hole - 1;
    const y = side === 'N' ? G.top : G.top + G.rowH + G.gap;
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
    const barY = side === 'N' ? 2 : G.top + 2 * G.rowH + G.gap + 24;
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
    // Hole numbers: above North's row (9..1), below South's (1..9).
    for (let hole = 1; hole <= 9; hole++) {
      const n = holeXY('N', hole);
      svg.appendChild(s('text', { x: n.x + G.w / 2, y: G.top - 8, class: 'num' }, hole));
      const so = holeXY('S', hole);
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

  // ---- navigation ----

  function current() {
    return { fen: st.fen, ply: st.ply, lastUci: st.lastUci };
  }

  /** Shows `entry`'s position; `first` is its tables-only answer when
   * already asked. */
  function show(entry, first) {
    st.fen = entry.fen;
    st.ply = entry.ply === undefined ? null : entry.ply;
    st.lastUci = entry.lastUci || null;
    st.answer = null;
    renderBoard();
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

  function fenAt(ply) {
    const g = st.game;
    return ply < g.moves.length ? g.moves[ply].fen_before : g.finalFen;
  }

  function gotoPly(ply, lastUci) {
    const g = st.game;
    if (!g) return;
    ply = Math.max(0, Math.min(g.moves.length, ply));
    st.back = [];
    st.fwd = [];
    show({ fen: fenAt(ply), ply, lastUci: lastUci || null });
  }

  function playMove(m) {
    const g = st.game;
    if (g && st.ply !== null && st.ply < g.moves.length && m.fen === fenAt(st.ply + 1)) {
      gotoPly(st.ply + 1, m.uci);
      return;
    }
    st.back.push(current());
    st.fwd = [];
    show({ fen: m.fen, ply: null, lastUci: m.uci });
  }

  function stepBack() {
    if (st.game && st.ply !== null) {
      if (st.ply > 0) gotoPly(st.ply - 1);
    } else if (st.back.length) {
      st.fwd.push(current());
      show(st.back.pop());
    }
  }

  function stepForward() {
    if (st.game && st.ply !== null) {
      if (st.ply < st.game.moves.length) {
        const next = fenAt(st.ply + 1);
        const m = (st.answer && st.answer.moves || []).find((x) => x.fen === next);
        gotoPly(st.ply + 1, m && m.uci);
      }
    } else if (st.fwd.length) {
      st.back.push(current());
      show(st.fwd.pop());
    }
  }

  function stepFirst() {
    if (st.game && st.ply !== null) gotoPly(0);
    else if (st.back.length) {
      const first = st.back[0];
      st.fwd = st.fwd.concat([current()], st.back.slice(1).reverse());
      st.back = [];
      show(first);
    }
  }

  function stepLast() {
    if (st.game && st.ply !== null) gotoPly(st.game.moves.length);
    else if (st.fwd.length) {
      const last = st.fwd[0];
      st.back = st.back.concat([current()], st.fwd.slice(1).reverse());
      st.fwd = [];
      show(last);
    }
  }

  function backToGame() {
    if (!st.game) return;
    const on = [...st.back].reverse().find((e) => e.ply !== null);
    gotoPly(on ? on.ply : 0);
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

  async function loadRecord(text, then) {
    setBusy(true, 'Annotating the game…');
    showError('');
    // Searches of a whole game add up: at most 1 s a position.
    const seconds = Math.min(1, Number($('search-time').value));
    const j = await getJson(`v1/annotate?search_time=${seconds}`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain; charset=utf-8' },
      body: text,
    });
    const games = Array.isArray(j) ? j : j && Array.isArray(j.games) ? j.games : j && j.moves ? [j] : [];
    if (games.length === 0) {
      restore();
      showError(`The record could not be read: ${(j && j.error) || 'no game in it'}`);
      return;
    }
    st.games = games;
    const select = $('game-select');
    select.replaceChildren();
    games.forEach((g, i) => {
      const t = g.tags || {};
      const who = t.White || t.Black ? `${t.White || '?'} – ${t.Black || '?'}` : 'moves';
      select.appendChild(h('option', { value: i }, `Game ${g.game || i + 1}: ${who}${g.result ? `, ${g.result}` : ''}${g.error ? ' (error)' : ''}`));
    });
    select.hidden = games.length < 2;
    const first = games.findIndex((g) => !g.error);
    select.value = String(Math.max(first, 0));
    await selectGame(Math.max(first, 0), then);
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

    // The move list, two plies a row.
    const list = $('movelist');
    list.replaceChildren();
    let row = null;
    g.moves.forEach((m, k) => {
      const north = /^[0-9]+\.\.\./.test(m.label);
      const number = String(m.label).match(/^[0-9]+/);
      if (!north || !row) {
        row = h('li', {}, h('span', { class: 'no' }, `${number ? number[0] : k + 1}.`));
        if (north) row.appendChild(h('span', { class: 'mv empty' }, '…'));
        list.appendChild(row);
      }
      const e = m.after;
      const chip = e
        ? h('span', { class: `chip ${e.winner === 'S' ? 's' : e.winner === 'N' ? 'n' : 'd'}` },
          `${e.winner === 'draw' ? '=' : e.winner}${e.dtm !== null && e.dtm !== undefined ? ` ${e.dtm}` : ''}`)
        : null;
      const b = h(
        'button',
        { type: 'button', class: m.mistake ? 'mv mistake' : 'mv', 'data-ply': k + 1, title: m.mistake ? `${m.mistake}${m.better ? `: ${m.better}` : ''}` : standing(e) },
        h('span', { class: 'text' }, g.texts[k]),
        m.mistake ? h('span', { class: 'mark' }, '??') : null,
        chip
      );
      b.addEventListener('click', () => gotoPly(k + 1));
      row.appendChild(b);
    });
  }

  function renderGameCursor() {
    const g = st.game;
    $('to-game').hidden = !g || st.ply !== null;
    if (!g) return;
    for (const b of document.querySelectorAll('#movelist .mv.current')) b.classList.remove('current');
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
    const b = document.querySelector(`#movelist .mv[data-ply="${st.ply}"]`);
    if (b) {
      b.classList.add('current');
      // Scroll the list only, never the page.
      const list = $('movelist');
      const row = b.parentElement;
      if (row.offsetTop < list.scrollTop) list.scrollTop = row.offsetTop;
      else if (row.offsetTop + row.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = row.offsetTop + row.offsetHeight - list.clientHeight;
      }
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
    return `[FEN "${start}"]\n\n${withKazans.join(' ')}\n`;
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
          st.back = [{ fen: st.game.finalFen, ply: st.game.moves.length, lastUci: null }];
          st.fwd = [];
          show({ fen, ply: null });
        } else gotoPly(Number.isFinite(ply) && ply !== null ? ply : st.game.moves.length);
      });
      return;
    }
    st.game = null;
    $('game').hidden = true;
    st.back = [];
    st.fwd = [];
    show({ fen: p.fen ? dec(p.fen) : START, ply: null });
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
        showError(`${a.error || 'no answer'}${a.move_index !== undefined ? ` (move ${a.move_index + 1})` : ''}`);
        return;
      }
      st.game = null;
      $('game').hidden = true;
      st.fwd = [];
      if (moves.length === 0) {
        st.back = [];
        show({ fen, ply: null }, a);
        return;
      }
      st.back = [{ fen: a.start || fen, ply: null, lastUci: null }];
      show({ fen: a.position || a.fen, ply: null });
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
      st.game = null;
      $('game').hidden = true;
      st.back = [];
      st.fwd = [];
      showError('');
      show({ fen: START, ply: null });
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
      const url = location.href;
      if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
      $('paste').value = url;
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
    applyParams(params);
  }

  init();
})();

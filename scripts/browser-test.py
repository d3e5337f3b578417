#!/usr/bin/env python3
"""The analysis board of `togyz-probe serve` in a real browser.

Headless Chromium, driven by selenium, against `togyz-probe serve` on a free
loopback port over tables generated in a temporary folder. The page's
verdicts are checked against `togyz-probe query` and its marks against
`togyz-probe annotate --json`, the command line being the reference: a
position is pasted, a hole clicked, the arrow keys pressed, a game record
pasted and reloaded from the page's own link. Screenshots at desktop and
phone width go to --out. Run by scripts/browser-test.sh (which installs
Chromium and selenium when missing); exits 1 on the first failed check.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

# A 6-stone position whose four moves win, draw and lose (checked below, so
# that the colours of all three are exercised).
POSITION = "1S,5,1S,2/1S,1,1S,2,1S,2,1S 77 79 S 30"
# Above the 6-stone tables: 8 stones, for the search's verdict and spinner.
ABOVE = "5,2S,2,1S/2S,1,1S,2S,5 75 79 S 30"
# Not a FEN: the North row has two holes.
BAD = "9S,9S/9S 0 0 S 1"
START = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RANK = {"loss": 0, "draw": 1, "win": 2}
# A 4-stone position (docs/http-api.md's) whose first moves are 91 and 12.
SMALL = "7,2S,1/8,2S 79 79 S 1"
# Two games from the start position, the second unreadable at its line 5.
TWO_GAMES = '[Event "a"]\n1. 76(10) 98\n\n[Event "x"]\n1. 76(10) zz 2. 11\n'


def line_from(cli, fen, plies):
    """A record of `plies` moves from `fen`, the first listed move each
    time, numbered from the FEN's move number, every mover's kazan
    written."""
    words = []
    pos = fen
    number = int(fen.split()[4])
    for _ in range(plies):
        q = cli.query(pos)
        if not q.get("moves"):
            break
        m = q["moves"][0]
        side = q["side"]
        if side == "S" or not words:
            words.append(f"{number}." if side == "S" else f"{number}...")
        _, kazans, _ = parse_fen(m["fen"])
        words.append(f"{m['move'].replace('x', 'X')}({kazans[side]})")
        if side == "N":
            number += 1
        pos = m["fen"]
    return f'[FEN "{fen}"]\n\n{" ".join(words)} *\n'


class Failed(Exception):
    pass


def check(ok, what):
    if not ok:
        raise Failed(what)
    print(f"  ok: {what}")


# ---- the command line: the reference ----


class Cli:
    def __init__(self, bin_dir, tables):
        self.probe = os.path.join(bin_dir, "togyz-probe")
        self.tables = tables

    def query(self, fen, seconds=0):
        out = subprocess.run(
            [self.probe, "query", "--json", "--tables", self.tables, "--search-time", str(seconds), "--fen", fen],
            capture_output=True, text=True, timeout=120,
        )
        return json.loads(out.stdout)

    def query_text(self, fen):
        out = subprocess.run(
            [self.probe, "query", "--tables", self.tables, "--search-time", "0", "--fen", fen],
            capture_output=True, text=True, timeout=60,
        )
        return out.stdout

    def annotate(self, record):
        out = subprocess.run(
            [self.probe, "annotate", "--json", "--tables", self.tables, "--search-time", "0", "-"],
            input=record, capture_output=True, text=True, timeout=120,
        )
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def parse_fen(fen):
    """{(side, hole): (stones, tuzdyk)} and the kazans, per docs/rules.md."""
    board, south_kazan, north_kazan, side, _ = fen.split()
    north_row, south_row = board.split("/")

    def row(text):
        cells = []
        for item in text.split(","):
            if item == "t":
                cells.append((0, True))
            elif item.endswith("S"):
                cells.append((int(item[:-1]), False))
            else:
                cells.extend([(0, False)] * int(item))
        assert len(cells) == 9, text
        return cells

    holes = {}
    for i, cell in enumerate(row(north_row)):
        holes[("N", 9 - i)] = cell  # written from North's hole 9 down to 1
    for i, cell in enumerate(row(south_row)):
        holes[("S", i + 1)] = cell
    return holes, {"S": int(south_kazan), "N": int(north_kazan)}, side


# ---- the page ----


def wait_ready(d, fen, timeout=30):
    """Until the page shows `fen` with its answer in place."""
    try:
        WebDriverWait(d, timeout).until(
            lambda d: d.execute_script(
                "return document.body.dataset.state === 'ready' && "
                "document.getElementById('board').dataset.fen === arguments[0]",
                fen,
            )
        )
    except TimeoutException:
        shown = d.execute_script("return document.getElementById('board').dataset.fen")
        text = d.find_element(By.ID, "verdict-text").text
        raise Failed(f"the page did not settle on {fen!r} (shows {shown!r}: {text!r})")


def board_of(d):
    return d.execute_script(
        """
        const holes = [...document.querySelectorAll('#board g.hole')].map((g) => [
          g.dataset.side, Number(g.dataset.hole), g.querySelector('text.count').textContent,
          g.dataset.uci || null]);
        const kazans = [...document.querySelectorAll('#board g.kazan')].map((g) => [
          g.dataset.side, g.querySelector('text.kcount').textContent]);
        return {holes, kazans};
        """
    )


def check_board(d, fen):
    holes, kazans, side = parse_fen(fen)
    shown = board_of(d)
    got = {(s, h): text for s, h, text, _ in shown["holes"]}
    want = {k: ("X" if t else "" if n == 0 else str(n)) for k, (n, t) in holes.items()}
    check(got == want, f"the board's 18 holes show {fen}")
    check(dict(shown["kazans"]) == {k: str(v) for k, v in kazans.items()}, "the kazans")
    return shown


def moves_of(d):
    return d.execute_script(
        """
        return [...document.querySelectorAll('#moves tbody tr')].map((tr) => [
          tr.dataset.move, tr.querySelector('.uci').textContent,
          tr.querySelector('.badge').className.replace('badge r-', ''),
          tr.querySelector('.dist').textContent]);
        """
    )


def check_answer(d, cli, fen):
    """The verdict, every move with result and distance, best first, and
    the best line, against `query`."""
    q = cli.query(fen)
    want = []
    for m in q["moves"]:
        dist = f"DTM {m['dtm']}" if m["dtm"] is not None else f"DTC {m['dtc']}" if m["dtc"] is not None else ""
        want.append([m["move"], m["uci"], m["result"], dist])
    got = moves_of(d)
    check(got == want, f"{len(want)} moves of {fen}, in order, with results and distances: {got}")
    verdict = d.find_element(By.ID, "verdict-text").text
    line = next(l for l in cli.query_text(fen).splitlines() if " to move" in l)
    check(verdict == line, f"the verdict {verdict!r} is query's {line!r}")
    pv = d.find_element(By.ID, "pv").text
    check(pv.endswith(" ".join(q["pv"])), f"the best line {pv!r}")
    return q


def move_marks(d):
    return d.execute_script(
        """
        return [...document.querySelectorAll('#movelist .mv[data-ply]')].map((b) => [
          Number(b.dataset.ply), b.querySelector('.text').textContent,
          !!b.querySelector('.mark') && b.querySelector('.mark').textContent,
          b.querySelector('.chip') ? b.querySelector('.chip').textContent : null]);
        """
    )


def strip_of(d):
    return d.execute_script(
        "return [...document.querySelectorAll('#strip rect.cell')].map((r) => r.getAttribute('class'));"
    )


def expected_marks(game):
    out = []
    for m in game["moves"]:
        text = re.sub(r"^[0-9]+\.(\.\.)?\s*", "", m["label"])
        a = m["after"]
        chip = None
        if a:
            chip = ("=" if a["winner"] == "draw" else a["winner"]) + (f" {a['dtm']}" if a["dtm"] is not None else "")
        out.append([m["ply"], text, "??" if m.get("mistake") else False, chip])
    return out


def build_game(cli, fen, plies=14):
    """A game from `fen`: best moves, except a worse one at the first ply
    and then at the first ply from the third on that has one, so that
    annotate has result-changing moves to mark. Each move carries the
    mover's kazan, as a record with tags must; the moves are numbered from
    the FEN's move number, as PlayOK numbers a game from a set-up
    position."""
    moves = []
    pos = fen
    mistakes = 2
    number = int(fen.split()[4])
    for ply in range(plies):
        q = cli.query(pos)
        if not q["moves"]:
            break
        pick = q["moves"][0]
        worse = [m for m in q["moves"] if RANK[m["result"]] < RANK[pick["result"]]]
        if mistakes and worse and (ply == 0 or ply >= 2):
            pick = worse[0]
            mistakes -= 1
        _, kazans, _ = parse_fen(pick["fen"])
        if q["side"] == "S" or not moves:
            moves.append(f"{number}." if q["side"] == "S" else f"{number}...")
        moves.append(f"{pick['move'].replace('x', 'X')}({kazans[q['side']]})")
        if q["side"] == "N":
            number += 1
        pos = pick["fen"]
    return (
        '[Event "browser test"]\n[White "south"]\n[Black "north"]\n'
        f'[FEN "{fen}"]\n\n{" ".join(moves)} *\n'
    )


def last_move(d):
    """The holes marked as the last move's origin and landing."""
    return d.execute_script(
        "return [...document.querySelectorAll('#board g.hole.last-from, #board g.hole.last-to')]"
        ".map((g) => g.dataset.side + g.dataset.hole + (g.classList.contains('last-from') ? 'from' : 'to'));"
    )


def uci_marks(uci):
    """The holes a UCI move marks: its origin and its landing."""
    def sq(t):
        f = ord(t[0]) - 97
        return ("S", f + 1) if t[1] == "1" else ("N", 9 - f)
    (a, b), (c, e) = sq(uci[:2]), sq(uci[2:4])
    return sorted([f"{a}{b}from", f"{c}{e}to"])


def check_last(d, uci, what):
    got = sorted(last_move(d))
    want = uci_marks(uci) if uci else []
    check(got == want, f"{what}: the last move marked {want} ({got})")


def note_shown(d):
    WebDriverWait(d, 5).until(lambda d: d.find_element(By.ID, "copy-note").is_displayed())
    return d.find_element(By.ID, "copy-note").text


def paste(d, text):
    box = d.find_element(By.ID, "paste")
    box.clear()
    box.send_keys(text)
    d.find_element(By.ID, "load-button").click()


def key(d, k):
    d.find_element(By.TAG_NAME, "body").send_keys(k)


def screenshot(d, path, width, height, whole=False):
    """The window at `width` × `height`, or the whole page that wide."""
    d.set_window_size(width, height)
    if whole:
        d.set_window_size(width, min(3000, d.execute_script("return document.documentElement.scrollHeight")))
    time.sleep(0.3)
    d.save_screenshot(path)
    print(f"  screenshot {path}")


# ---- the run ----


def start_server(bin_dir, tables, log_path):
    """`togyz-probe serve` on a port the system picks (it prints the
    address); its log goes to `log_path`."""
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [os.path.join(bin_dir, "togyz-probe"), "serve", "--tables", tables, "--bind", "127.0.0.1:0",
         "--search-time", "10"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = None
    for _ in range(400):
        if proc.poll() is not None:
            raise Failed(f"togyz-probe serve exited with {proc.returncode} (log: {log_path})")
        if url is None:
            with open(log_path) as f:
                m = re.search(r"127\.0\.0\.1:([1-9][0-9]*)", f.read())
            if m:
                url = f"http://127.0.0.1:{m.group(1)}/"
        if url:
            try:
                with urllib.request.urlopen(url + "healthz", timeout=1) as r:
                    if r.status == 200:
                        return proc, url
            except OSError:
                pass
        time.sleep(0.05)
    proc.kill()
    raise Failed(f"togyz-probe serve did not answer /healthz within 20 s (log: {log_path})")


def browser():
    opts = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        opts.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="togyz-chromium-")
    opts.add_argument(f"--user-data-dir={profile}")
    opts.add_argument("--window-size=1280,860")
    opts.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=opts, service=service), profile


def run(d, cli, url, out):
    print("== a pasted position")
    origin = urllib.parse.urlsplit(url)
    d.execute_cdp_cmd("Browser.grantPermissions", {
        "origin": f"{origin.scheme}://{origin.netloc}",
        "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
    })
    d.get(url)
    wait_ready(d, START)
    q = cli.query(POSITION)
    check({m["result"] for m in q["moves"]} == {"win", "draw", "loss"}, "the position's moves win, draw and lose")
    paste(d, POSITION)
    wait_ready(d, POSITION)
    check_board(d, POSITION)
    check_answer(d, cli, POSITION)
    check("fen=" + POSITION.replace(" ", "_") in d.current_url, "the URL holds the position")
    # Results in lichess's colours: its green and red, and grey for draws.
    colours = d.execute_script(
        "return Object.fromEntries([...document.querySelectorAll('#moves .badge')].map("
        "(b) => [b.className.replace('badge r-', ''), getComputedStyle(b).backgroundColor]));"
    )
    check(colours == {"win": "rgb(98, 153, 36)", "draw": "rgb(138, 138, 138)", "loss": "rgb(204, 51, 51)"},
          f"wins green, draws grey, losses red: {colours}")
    # The holes of the side to move play its moves; their outlines are the moves' colours.
    playable = {h[3] for h in board_of(d)["holes"] if h[3]}
    check(playable == {m["uci"] for m in q["moves"]}, "exactly the legal moves' holes are playable")

    print("== the server's limits, the legend, flip, copy")
    options = [o.get_attribute("value") for o in d.find_elements(By.CSS_SELECTOR, "#search-time option")]
    check(options == ["0", "1", "2", "5", "10"], f"the server caps searches at 10 s: no longer one is offered ({options})")
    d.find_element(By.CSS_SELECTOR, "#legend-box summary").click()
    legend = d.find_element(By.ID, "legend").text
    check(all(w in legend for w in ("?", "DTM", "DTC", "proven", "feeds")), "a legend of ?, DTM, DTC, proven and feeds")
    rows_y = (
        "const y = (s) => Number(document.querySelector(`#board g.hole[data-side='${s}'][data-hole='1'] rect`)"
        ".getAttribute('y')); return [y('N'), y('S')];"
    )
    n_y, s_y = d.execute_script(rows_y)
    check(n_y < s_y, "North's row on top, as South sees the board")
    d.find_element(By.ID, "flip").click()
    n_y, s_y = d.execute_script(rows_y)
    check(s_y < n_y, "flipped: South's row on top")
    check_board(d, POSITION)
    screenshot(d, os.path.join(out, "board-flipped-desktop.png"), 1280, 860)
    d.find_element(By.ID, "flip").click()
    n_y, s_y = d.execute_script(rows_y)
    check(n_y < s_y, "flipped back")
    boxed = d.find_element(By.ID, "paste").get_attribute("value")
    d.find_element(By.ID, "copy-fen").click()
    check(note_shown(d) == "FEN copied", "copy says the FEN is copied")
    clip = d.execute_async_script("navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('!' + e));")
    check(clip == POSITION, f"the clipboard holds the FEN ({clip!r})")
    d.find_element(By.ID, "share").click()
    check(note_shown(d) == "link copied", "link says the link is copied")
    clip = d.execute_async_script("navigator.clipboard.readText().then(arguments[0], (e) => arguments[0]('!' + e));")
    check(clip == d.current_url, f"the clipboard holds the page's link ({clip!r})")
    check(d.find_element(By.ID, "paste").get_attribute("value") == boxed, "the paste box is left as it was")

    print("== a FEN with moves: the move list, the last move, a variation, the export")
    paste(d, f"{SMALL} 91 91")
    WebDriverWait(d, 10).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    shown = d.find_element(By.ID, "error").text
    check(shown.startswith("move 2 of 2") and shown.endswith("(move 2)"), f"the bad move's number, once: {shown!r}")
    q0 = cli.query(SMALL)
    m1 = next(m for m in q0["moves"] if m["move"] == "91")
    q1 = cli.query(m1["fen"])
    m2 = next(m for m in q1["moves"] if m["move"] == "12")
    paste(d, f"{SMALL} 91 12")
    wait_ready(d, m2["fen"])
    listed = d.execute_script("return [...document.querySelectorAll('#movelist .mv .text')].map((t) => t.textContent)")
    check(listed == ["91", "12"], f"the moves played from the FEN are listed ({listed})")
    check_last(d, m2["uci"], "after the moves")
    key(d, Keys.ARROW_LEFT)
    wait_ready(d, m1["fen"])
    check_last(d, m1["uci"], "after ←")
    key(d, Keys.HOME)
    wait_ready(d, SMALL)
    check_last(d, None, "at the start (Home)")
    key(d, Keys.END)
    wait_ready(d, m2["fen"])
    check_last(d, m2["uci"], "after End")
    key(d, Keys.ARROW_LEFT)
    wait_ready(d, m1["fen"])
    alt = next((m for m in q1["moves"] if m["move"] != "12"), None)
    check(alt is not None, "North has another move there")
    d.find_element(By.CSS_SELECTOR, f'#board g.hole[data-uci="{alt["uci"]}"]').click()
    wait_ready(d, alt["fen"])
    check_last(d, alt["uci"], "after a click on a hole")
    variation = d.execute_script("return [...document.querySelectorAll('#movelist li.var .mv .text')].map((t) => t.textContent)")
    check(variation == [alt["move"]], f"the other move is a variation under the line ({variation})")
    d.find_element(By.CSS_SELECTOR, "#movelist li .mv[data-fen]").click()
    wait_ready(d, m1["fen"])
    check_last(d, m1["uci"], "after a click on the move list")
    d.find_element(By.CSS_SELECTOR, "#movelist li.var .mv").click()
    wait_ready(d, alt["fen"])
    d.find_element(By.ID, "export").click()
    check(note_shown(d) == "record copied", "export says the record is copied")
    exported = d.find_element(By.ID, "export-box").get_attribute("value")
    back = cli.annotate(exported)
    check(len(back) == 1 and not back[0].get("error") and back[0]["plies"] == 2
          and back[0]["tags"].get("FEN") == SMALL,
          f"annotate reads the exported record back: the variation's 2 plies from the FEN ({exported!r})")
    played = [re.sub(r"^[0-9]+\.(\.\.)?\s*", "", m["label"]) for m in back[0]["moves"]]
    check(played == ["91", alt["move"]], f"the exported line is the one shown ({played})")
    screenshot(d, os.path.join(out, "line-desktop.png"), 1280, 860)
    screenshot(d, os.path.join(out, "line-phone.png"), 390, 844, whole=True)
    d.set_window_size(1280, 860)
    paste(d, POSITION)
    wait_ready(d, POSITION)
    check(not d.find_element(By.ID, "export-box").is_displayed(), "the exported record goes with its line")

    print("== a bad FEN")
    paste(d, BAD)
    WebDriverWait(d, 10).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    shown = d.find_element(By.ID, "error").text
    check(shown == cli.query(BAD)["error"], f"the server's message for a bad FEN, as query gives it: {shown!r}")
    wait_ready(d, POSITION)
    check(True, "the board keeps its position")

    print("== a click on a hole")
    move = next(m for m in q["moves"] if m["result"] == "draw")
    d.find_element(By.CSS_SELECTOR, f'#board g.hole[data-uci="{move["uci"]}"]').click()
    wait_ready(d, move["fen"])
    check_board(d, move["fen"])
    check_answer(d, cli, move["fen"])
    check(not d.find_element(By.ID, "error").is_displayed(), "a move played clears the pasted FEN's message")
    key(d, Keys.ARROW_LEFT)
    wait_ready(d, POSITION)
    check(True, "← goes back to the position")
    key(d, Keys.ARROW_RIGHT)
    wait_ready(d, move["fen"])
    check(True, "→ goes forward to the move's position")
    screenshot(d, os.path.join(out, "board-desktop.png"), 1280, 860)
    d.set_window_size(390, 844)
    wait_ready(d, move["fen"])
    width = d.execute_script("return document.documentElement.scrollWidth")
    check(width <= 390, f"at phone width nothing sticks out ({width} px wide)")
    check_board(d, move["fen"])
    screenshot(d, os.path.join(out, "board-phone.png"), 390, 844)
    d.set_window_size(1280, 860)

    print("== above the tables: proof search")
    d.find_element(By.CSS_SELECTOR, '#search-time option[value="10"]').click()
    # Every state the verdict goes through, with the spinner's.
    d.execute_script(
        """
        window.seen = [];
        const verdict = document.getElementById('verdict');
        new MutationObserver(() => window.seen.push([
          document.getElementById('verdict-text').textContent,
          !verdict.querySelector('.spinner').hidden])).observe(
          verdict, {subtree: true, childList: true, characterData: true, attributes: true});
        """
    )
    paste(d, ABOVE)
    wait_ready(d, ABOVE, timeout=40)
    seen = d.execute_script("return window.seen")
    check(any("searching" in text and spinning for text, spinning in seen),
          f"a spinner while the search runs: {[t for t, _ in seen][-3:]}")
    s = cli.query(ABOVE, seconds=10)
    check(s.get("source") == "search", "query answers the position by search")
    verdict = d.find_element(By.ID, "verdict-text").text
    if s["result"] != "unknown":
        words = {"win": "wins", "draw": "draws", "loss": "loses"}[s["result"]]
        side = {"S": "South", "N": "North"}[s["side"]]
        check(verdict == f"{side} to move {words} (proven by search).", f"the search's verdict {verdict!r}")
        check("search proved it" in d.find_element(By.ID, "proof").text, "what the search proved is shown")
    else:
        check(verdict.startswith("Not proven"), f"an unproven search says so: {verdict!r}")
    check(not d.find_element(By.CSS_SELECTOR, "#verdict .spinner").is_displayed(), "the spinner is gone at the end")
    rows = moves_of(d)
    check(sorted(r[0] for r in rows) == sorted(m["move"] for m in s["moves"]), "every legal move is listed")
    if s["result"] in ("win", "draw"):
        # The proving move first, with the proven result (the search may
        # find another proving move than query's did).
        check(rows[0][2] == s["result"], f"the proving move first: {rows[0]}")
    elif s["result"] == "loss":
        check(all(r[2] == "loss" for r in rows), "every move loses")
    d.find_element(By.CSS_SELECTOR, '#search-time option[value="0"]').click()

    print("== a game record")
    record = build_game(cli, POSITION)
    games = cli.annotate(record)
    check(len(games) == 1 and not games[0].get("error"), f"annotate reads the test's record {games[0].get('error', '')}")
    game = games[0]
    check(game["mistakes"] >= 2, f"the record has result-changing moves ({game['mistakes']})")
    paste(d, record)
    last = game["plies"]
    # The game's last position, from query: where the page must end up.
    before = game["moves"][-1]
    text = re.sub(r"^[0-9]+\.(\.\.)?\s*", "", before["label"]).replace("X", "x")
    final = next(m["fen"] for m in cli.query(before["fen_before"])["moves"] if m["move"] == text)
    wait_ready(d, final)
    check_board(d, final)
    number = d.find_element(By.CSS_SELECTOR, "#movelist li .no").text
    check(number == "30.", f"the moves are numbered as the record numbers them, from the FEN's 30 ({number!r})")
    check_last(d, game["moves"][-1]["uci"], "at the game's end")
    marks = move_marks(d)
    want = expected_marks(game)
    check(marks == want, f"each move's mark and verdict equal annotate's: {marks}")
    check([m[0] for m in marks if m[2] == "??"] == [m["ply"] for m in game["moves"] if m.get("mistake")],
          "the ?? moves are annotate's result-changing moves")
    cells = strip_of(d)
    winners = [game["moves"][0]["before"]] + [m["after"] for m in game["moves"]]
    want_cells = ["cell " + ({"S": "s", "N": "n", "draw": "d"}[w["winner"]] if w else "u") for w in winners]
    check(cells == want_cells, "the strip shows who wins at each ply")
    key(d, Keys.HOME)
    wait_ready(d, POSITION)
    key(d, Keys.ARROW_RIGHT)
    wait_ready(d, game["moves"][1]["fen_before"])
    current = d.execute_script("return document.querySelector('#movelist .mv.current').dataset.ply")
    check(current == "1", "Home then → shows ply 1, marked in the move list")
    check_last(d, game["moves"][0]["uci"], "Home then →")
    d.find_element(By.CSS_SELECTOR, '#strip rect.cell[data-ply="3"]').click()
    wait_ready(d, game["moves"][3]["fen_before"])
    check_last(d, game["moves"][2]["uci"], "a click on the strip")
    south = d.execute_script(
        "const k = document.querySelector('.key.s'); return [getComputedStyle(k).backgroundColor, "
        "getComputedStyle(document.body).backgroundColor];"
    )
    check(south[0] == "rgb(224, 179, 65)" and south[0] != south[1],
          f"'South wins' is a colour that stands out on the page ({south})")
    first = next(m for m in game["moves"] if m.get("mistake"))
    d.find_element(By.CSS_SELECTOR, f'#movelist .mv[data-ply="{first["ply"]}"]').click()
    at = first["ply"]
    wait_ready(d, game["moves"][at]["fen_before"] if at < last else final)
    note = d.find_element(By.ID, "move-note").text
    check(note.startswith(f"{first['label']}?? {first['mistake']}"), f"the move's note: {note!r}")
    check_last(d, first["uci"], "a click on the game's move list")

    print("== the game's link")
    link = d.current_url
    check("#game=" in link, "the URL holds the game")
    d.get("about:blank")
    d.get(link)
    wait_ready(d, game["moves"][at]["fen_before"] if at < last else final)
    check(move_marks(d) == want, "the link brings back the game with the same marks")
    number = d.find_element(By.CSS_SELECTOR, "#movelist li .no").text
    check(number == "30.", f"numbered from the FEN's 30 again ({number!r})")
    key(d, Keys.HOME)
    wait_ready(d, POSITION)
    screenshot(d, os.path.join(out, "game-desktop.png"), 1280, 860)
    screenshot(d, os.path.join(out, "game-phone.png"), 390, 844, whole=True)
    d.set_window_size(1280, 860)

    print("== a variation off the game")
    off = next(m for m in cli.query(POSITION)["moves"] if m["fen"] != game["moves"][1]["fen_before"])
    d.find_element(By.CSS_SELECTOR, f'#board g.hole[data-uci="{off["uci"]}"]').click()
    wait_ready(d, off["fen"])
    check(d.find_element(By.ID, "to-game").is_displayed(), "off the game's line, a button leads back")
    check("game=" in d.current_url and "fen=" + off["fen"].replace(" ", "_") in d.current_url,
          "the URL holds the game and the variation's position")
    key(d, Keys.ARROW_LEFT)
    wait_ready(d, POSITION)
    check(not d.find_element(By.ID, "to-game").is_displayed(), "← returns to the game's line")

    print("== a record that does not replay")
    kazan = re.search(r"\(([0-9]+)\)", record).group(1)
    broken = record.replace(f"({kazan})", f"({int(kazan) + 1})", 1)
    error = cli.annotate(broken)[0]["error"]
    paste(d, broken)
    WebDriverWait(d, 10).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    shown = d.find_element(By.ID, "error").text
    check(error in shown, f"annotate's error is shown: {shown!r}")

    print("== a record of two games, the second unreadable, shown as it streams")
    d.execute_script(
        """
        window.progressSeen = [];
        const p = document.getElementById('progress');
        new MutationObserver(() => window.progressSeen.push(p.textContent)).observe(
          p, {subtree: true, childList: true, characterData: true});
        """
    )
    want = cli.annotate(TWO_GAMES)
    check(want[1]["line"] == 4 and want[1]["tags"] == {"Event": "x"} and want[1]["error"],
          f"annotate gives the unreadable game its line and tags: {want[1]}")
    paste(d, TWO_GAMES)
    WebDriverWait(d, 30).until(lambda d: "annotated in" in d.find_element(By.ID, "progress").text)
    seen = d.execute_script("return window.progressSeen")
    check(any("so far" in t for t in seen), f"a progress line while the games come: {seen[:3]}")
    options = [o.text for o in d.find_elements(By.CSS_SELECTOR, "#game-select option")]
    check(len(options) == 2 and options[1].startswith("Game 2: x") and "(error)" in options[1],
          f"both games listed, the second by its Event: {options}")
    d.find_element(By.CSS_SELECTOR, '#game-select option[value="1"]').click()
    WebDriverWait(d, 10).until(lambda d: d.find_element(By.ID, "error").is_displayed())
    shown = d.find_element(By.ID, "error").text
    check(shown == f"Game 2 (line 4): {want[1]['error']}", f"the game's line, not 0: {shown!r}")

    print("== an annotation with search, twice: the same verdicts")
    d.find_element(By.CSS_SELECTOR, '#search-time option[value="1"]').click()
    above = line_from(cli, ABOVE, 6)
    summaries = []
    for _ in range(2):
        paste(d, above)
        WebDriverWait(d, 60).until(lambda d: "annotated in" in d.find_element(By.ID, "progress").text)
        progress_text = d.find_element(By.ID, "progress").text
        summaries.append((d.find_element(By.ID, "game-summary").text, move_marks(d)))
        d.execute_script("document.getElementById('progress').textContent = ''")
    check("nodes a position" in progress_text, f"the search is a number of nodes: {progress_text!r}")
    check(summaries[0] == summaries[1], f"loaded twice, the same verdicts: {summaries[0][0]!r}")
    d.find_element(By.CSS_SELECTOR, '#search-time option[value="0"]').click()

    with urllib.request.urlopen(url + "favicon.svg", timeout=5) as r:
        check(r.status == 200 and r.headers["Content-Type"] == "image/svg+xml", "a favicon")

    # The console: no script error, and no failed request but the bad
    # FEN's 400 and the bad move's.
    expected = ("fen=" + urllib.parse.quote(BAD.replace(" ", "_"), safe="_"), "moves=91%2C91")
    errors = [e for e in d.get_log("browser")
              if e["level"] == "SEVERE" and not any(x in e["message"] for x in expected)]
    check(not errors, f"no errors in the browser's console: {errors}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/ci", help="folder with togyz-probe and togyz-gen")
    ap.add_argument("--out", default="target/browser-test", help="folder for the screenshots")
    ap.add_argument("--tables", help="use these tables (at least 6 stones) instead of generating them")
    ap.add_argument("--url", help="test this running server (over --tables) instead of starting one")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="togyz-browser-test-")
    proc = driver = profile = None
    try:
        tables = args.tables
        if not tables:
            tables = os.path.join(tmp, "tables")
            subprocess.run(
                [os.path.join(args.bin, "togyz-gen"), "generate", "--max-stones", "6", "--out", tables],
                check=True, stdout=subprocess.DEVNULL,
            )
        url = args.url
        if not url:
            proc, url = start_server(args.bin, tables, os.path.join(args.out, "serve.log"))
        print(f"server {url}, tables {tables}")
        driver, profile = browser()
        run(driver, Cli(args.bin, tables), url, args.out)
    except Failed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        if driver:
            driver.save_screenshot(os.path.join(args.out, "failure.png"))
            print(f"  the page at the failure: {os.path.join(args.out, 'failure.png')}", file=sys.stderr)
        return 1
    finally:
        if driver:
            driver.quit()
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)
        if profile:
            shutil.rmtree(profile, ignore_errors=True)
    print("browser test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

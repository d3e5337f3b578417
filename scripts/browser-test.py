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
    mover's kazan, as a record with tags must."""
    moves = []
    pos = fen
    mistakes = 2
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
        moves.append(f"{pick['move'].replace('x', 'X')}({kazans[q['side']]})")
        pos = pick["fen"]
    return (
        '[Event "browser test"]\n[White "south"]\n[Black "north"]\n'
        f'[FEN "{fen}"]\n\n{" ".join(moves)} *\n'
    )


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
    first = next(m for m in game["moves"] if m.get("mistake"))
    d.find_element(By.CSS_SELECTOR, f'#movelist .mv[data-ply="{first["ply"]}"]').click()
    at = first["ply"]
    wait_ready(d, game["moves"][at]["fen_before"] if at < last else final)
    note = d.find_element(By.ID, "move-note").text
    check(note.startswith(f"{first['label']}?? {first['mistake']}"), f"the move's note: {note!r}")

    print("== the game's link")
    link = d.current_url
    check("#game=" in link, "the URL holds the game")
    d.get("about:blank")
    d.get(link)
    wait_ready(d, game["moves"][at]["fen_before"] if at < last else final)
    check(move_marks(d) == want, "the link brings back the game with the same marks")
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

    # The console: no script error, and no failed request but the bad
    # FEN's 400 (and the favicon there is none of).
    expected = ("favicon.ico", "fen=" + urllib.parse.quote(BAD.replace(" ", "_"), safe="_"))
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

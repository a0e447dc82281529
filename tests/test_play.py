"""`sim play`: a game at the terminal driven by a script of lines (legal, illegal, garbage,
`hint`, end of input), saved, and shown again by `sim replay --file` with the same result."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sim.kernel.cards import NAMES
from sim.cli.app import app
from sim.kernel.layout import CURRENT, FU, NR, OVER, TURN
from sim.studies.analysis import move_words
from reports.game import result_lines
from sim.cli.play import Terminal, play
from sim.commands.savedgame import load
from sim.cli.table import Table
from sim.cli.words import parse
from sim.kernel.ruleset import Ruleset
from sim.kernel.position import move_to_dict


def run(*args, input="", env=None):
    return CliRunner().invoke(app, [str(a) for a in args], input=input, env=env)


@pytest.mark.parametrize("text,expected", [
    ("7 7", ("move", {"play": ["7", "7"]})),
    ("play 10", ("move", {"play": ["10"]})),
    ("q Q", ("move", {"play": ["Q", "Q"]})),
    ("q", ("move", {"play": ["Q"]})),                       # a queen, not quit
    ("jk", ("move", {"play": ["JK"]})),
    ("pickup", ("move", {"pickup": True})),
    ("pick up", ("move", {"pickup": True})),
    ("add K", ("move", {"pickup": True, "add": "K"})),
    ("pickup add a", ("move", {"pickup": True, "add": "A"})),
    ("blind", ("move", {"blind": True})),
    ("hint", ("hint", None)),
    ("quit", ("quit", None)),
    ("  ", ("empty", None)),
])
def test_moves_are_read_in_plain_words(text, expected):
    assert parse(text) == expected


@pytest.mark.parametrize("text", ["xyz", "7 x", "add", "add K Q", "pickup now"])
def test_garbage_is_named(text):
    what, why = parse(text)
    assert what == "garbage" and why


def _first_turn(players=3, seed=7, rules="seed"):
    """The human's (seat 0) first position when it keeps its face-ups: the bots' moves until
    then are deterministic given the seed."""
    t = Table(players, Ruleset.parse(rules), seed)
    t.deal()
    t.swap(t.choose_mask("keep")[0])
    t.opening()
    while int(t.st[1]) != 0:
        t.play(t.bot_move())
    return t


def test_a_scripted_session_explains_and_asks_again_then_ends_at_end_of_input(tmp_path):
    t = _first_turn()
    legal = [move_to_dict(m) for m in t.legal()]
    illegal = next(c for c in ("3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A")
                   if {"play": [c]} not in legal)
    script = ["keep", "xyz", illegal, "hint", move_words(t.legal()[0])]
    save = tmp_path / "g.json"
    r = run("play", "--players", 3, "--seed", 7, "--save", save, "--hint-rollouts", 30,
            input="\n".join(script) + "\n")
    assert r.exit_code == 0, r.output
    out = r.output
    assert "your move> xyz\nI did not understand that: 'xyz' is not a card" in out
    assert f"your move> {illegal}\nNot legal: you do not hold any {illegal} in your" in out
    assert "{" not in out and "'play'" not in out           # cards in words, no Python objects
    answer = out.split("your move> hint\n")[1].splitlines()[0]   # the answer comes first
    assert answer.startswith("Hint: ") and "win chance" in answer and "%" in answer, answer
    assert "95% Wilson score interval, n = 30" in out
    assert "Hidden cards re-dealt in every world (R26)" in out
    m = t.legal()[0]
    t.play(m)                                  # the same game: the card the human drew (R8)
    assert t.drawn and f"you drew {' '.join(t.drawn)} (R8)" in out
    assert "(end of input)" in out and "The game is unfinished (end of input)." in out
    for line in ("pile", "stock", "face-up", "face-down", "you may:"):
        assert line in out                                   # what a player sees
    game = load(save)
    assert game["status"] == "unfinished" and game["reason"] == "end of input"
    mine = [e for e in game["moves"] if e["seat"] == 0]
    assert mine[0] == {"seat": 0, "move": legal[0]}
    r2 = run("replay", "--file", save)
    assert r2.exit_code == 0, r2.output
    assert "Unfinished after" in r2.output and "seat 0 (you)" in r2.output


class Autoplayer:
    """A stdin that answers every question: `keep`, then the last legal move listed (a
    pick-up or a blind turn when there is one), the first play otherwise."""

    def __init__(self, table, pick=0):
        self.table, self.pick = table, pick
        self.lines = 0

    def isatty(self):
        return False

    def readline(self):
        self.lines += 1
        if self.table.start is None:
            return "keep\n"
        legal = self.table.legal()
        return move_words(legal[self.pick]) + "\n"


@pytest.mark.parametrize("rules,players,seed", [
    ("seed", 2, 3),
    ("boothj5", 3, 5),            # V2 and the H16 forced opening
    ("classic", 4, 1),
])
def test_a_played_game_is_saved_and_replays_to_the_same_result(tmp_path, rules, players, seed):
    t = Table(players, Ruleset.parse(rules), seed)
    said = []
    term = Terminal(stdin=Autoplayer(t), echo=said.append)
    save = tmp_path / "g.json"
    rec = play(t, term, save)
    assert rec["status"] == "finished" and rec["reason"] == "game over", said[-5:]
    ending = result_lines(t.st, t.seats)
    assert said[-len(ending) - 1:-1] == ending
    if rules == "boothj5":
        assert any(s.startswith("Forced opening (H16)") for s in said)
        assert rec["moves"][0]["seat"] == rec["first"]
        assert rec["result"]["shithead"] not in rec["result"]["order"]
    r = run("replay", "--file", save)
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[-len(ending):] == ending


def test_tampered_saved_games_are_refused(tmp_path):
    t = Table(2, Ruleset.parse("seed"), 3)
    save = tmp_path / "g.json"
    play(t, Terminal(stdin=Autoplayer(t), echo=lambda s: None), save)
    game = json.loads(save.read_text())
    game["result"]["winner"] = 1 - game["result"]["winner"]
    game["result"]["order"] = [game["result"]["winner"]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(game))
    r = run("replay", "--file", bad)
    assert r.exit_code == 2 and r.output.startswith("error: --file: the moves give")
    game = json.loads(save.read_text())
    game["moves"][3]["move"] = {"play": ["JK"]}
    bad.write_text(json.dumps(game))
    r = run("replay", "--file", bad)
    assert r.exit_code == 2 and "is not legal (R24)" in r.output
    for content in ("{", "[]"):
        bad.write_text(content)
        r = run("replay", "--file", bad)
        assert r.exit_code == 2 and r.output.count("\n") == 1
    assert run("replay").exit_code == 2                       # neither --game nor --file


def test_end_of_input_in_the_swap_and_quit_in_play_save_unfinished_games(tmp_path):
    save = tmp_path / "a.json"
    r = run("play", "--players", 2, "--seed", 4, "--save", save)
    assert r.exit_code == 0, r.output
    assert load(save)["start"] is None
    assert "Unfinished before the swap." in run("replay", "--file", save).output
    r = run("play", "--players", 2, "--seed", 4, "--save", save, input="keep\nquit\n")
    assert r.exit_code == 0 and load(save)["reason"] == "quit"


def test_without_seed_a_new_deal_that_its_seed_deals_again(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run("play", "--players", 3, "--save", a, input="quit\n").exit_code == 0
    first = load(a)
    assert first["reason"] == "quit" and first["start"] is None
    assert f"Seed {first['seed']} (--seed {first['seed']} deals these cards again)" in run(
        "play", "--players", 3, "--seed", first["seed"], "--save", b).output
    assert load(b)["dealt"] == first["dealt"]


def test_V1_swap_choices_are_checked():
    t = Table(3, Ruleset.build("seed", ["choose_face_ups=true"]), 2)
    t.deal()
    cards = t.swap_choices()
    assert len(cards) == 6
    assert "under V1" in t.choose_mask("keep")[1]
    assert "exactly 3" in t.choose_mask(" ".join(cards[:2]))[1]
    missing = next(c for c in ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
                   if c not in cards)
    assert "no " + missing in t.choose_mask(" ".join(cards[:2] + [missing]))[1]
    mask, why = t.choose_mask(" ".join(cards[3:]))
    assert why is None and mask == 0b111000
    t.swap(mask)
    up = [NAMES[r] for r in range(NR) for _ in range(int(t.start[FU + r]))]
    assert sorted(up) == sorted(cards[3:])                           # seat 0's face-ups


def test_the_default_save_path_is_under_the_users_cache(tmp_path):
    r = run("play", "--players", 2, "--seed", 1, input="", env={"HOME": str(tmp_path)})
    assert r.exit_code == 0, r.output
    saved = list((tmp_path / ".cache" / "shithead-sim" / "games").glob("*-seed1.json"))
    assert len(saved) == 1 and str(saved[0]) in r.output


@pytest.mark.parametrize("args,message", [
    (["--players", 7], "2 to 6 players"),
    (["--players", 3, "--seat", 3], "--seat"),
    (["--opponents", "nobody"], "unknown strategy"),
    (["--players", 3, "--opponents", "lowest", "--opponents", "counting",
      "--opponents", "random"], "--opponents"),
    (["--rule", "skip_rank=2"], "skip_rank"),
])
def test_bad_options_are_one_error_line(tmp_path, args, message):
    r = run("play", "--save", tmp_path / "x.json", *args)
    assert r.exit_code == 2 and r.output.startswith("error: ") and message in r.output
    assert r.output.count("\n") == 1


def test_ctrl_c_saves_the_game_then_stops_with_130(tmp_path, monkeypatch):
    import sim.cli.play

    def interrupted(self, prompt):
        raise KeyboardInterrupt
    monkeypatch.setattr(sim.cli.play.Terminal, "ask", interrupted)
    save = tmp_path / "g.json"
    r = run("play", "--players", 2, "--seed", 3, "--save", save)
    assert r.exit_code == 130 and "Traceback" not in r.output
    assert load(save)["reason"] == "interrupted"


# -- the save file checked first, never lost; reasons in words; hint's answer
# first; help on one screen; --load continues exactly --------------------------------------
def test_help_fits_one_screen():
    from sim.cli.words import HELP

    lines = HELP.rstrip("\n").splitlines()
    assert len(lines) <= 20 and max(map(len, lines)) <= 80
    for word in ("pickup", "add K", "blind", "hint", "save", "quit", "moves", "rule R9"):
        assert word in HELP


@pytest.mark.parametrize("where", ["file/g.json", "."])
def test_an_unwritable_save_path_is_refused_before_the_deal(tmp_path, where):
    (tmp_path / "file").write_text("a file, not a folder")
    r = run("play", "--players", 2, "--seed", 3, "--save", tmp_path / where, input="keep\n")
    assert r.exit_code == 2 and r.output.startswith("error: --save: ")
    assert r.output.count("\n") == 1                  # nothing dealt, nothing asked
    assert ("is a file, not a folder" if where != "." else "is a folder") in r.output


def test_a_game_whose_file_cannot_be_written_at_the_end_is_kept(tmp_path, monkeypatch):
    import sim.cli.play
    from sim.commands import savedgame

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    asked = tmp_path / "g.json"

    def failing(rec, path, fails=(asked,)):
        if path in fails or not fails:
            raise ValueError(f"cannot write {path}: Disk full")
        return savedgame.save(rec, path)
    monkeypatch.setattr(sim.cli.play, "save", failing)
    t = Table(2, Ruleset.parse("seed"), 3)
    said = []
    rec = play(t, Terminal(stdin=Autoplayer(t), echo=said.append), asked)
    assert any("Could not save the game: cannot write" in x for x in said)
    elsewhere = tmp_path / "home" / ".cache" / "shithead-sim" / "games"
    assert rec["path"].startswith(str(elsewhere)) and load(rec["path"])["moves"] == rec["moves"]
    monkeypatch.setattr(sim.cli.play, "save", lambda rec, path: failing(rec, path, ()))
    t = Table(2, Ruleset.parse("seed"), 3)
    said = []
    rec = play(t, Terminal(stdin=Autoplayer(t), echo=said.append), asked)
    assert rec["path"] is None and said[-2].startswith("The game as JSON")
    assert json.loads(said[-1])["moves"] == rec["moves"]          # printed whole


def test_illegal_moves_are_explained_in_words_with_their_rule():
    """Every card the human holds but may not play, at every turn of a game: the kernel's
    reason names the card and the rule (R9, R13, R24), never a Python object."""
    t = Table(3, Ruleset.parse("seed"), 11)
    t.deal()
    t.swap(t.choose_mask("keep")[0])
    said = []
    while not t.st[OVER] and int(t.st[TURN]) < 400:
        if int(t.st[CURRENT]) == 0:
            legal = [move_to_dict(m) for m in t.legal()]
            for c in NAMES:
                why = t.why_illegal({"play": [c]})
                assert (why is None) == ({"play": [c]} in legal)
                if why:
                    assert "{" not in why and "(R" in why and c in why, why
                    said.append(why)
            t.play(t.legal()[0])
        else:
            t.play(t.bot_move())
    assert any(w.startswith("you do not hold any") and "(R24)" in w for w in said)
    assert any(" cannot go on " in w and "(R9, H0)" in w for w in said)


def _moves_typed(players, rules, seed, opponents):
    """The lines the Autoplayer typed in a whole game, and that game's record."""
    t = Table(players, Ruleset.parse(rules), seed, opponents=opponents)
    stdin = Autoplayer(t)
    typed = []
    real = stdin.readline
    stdin.readline = lambda: typed.append(real()) or typed[-1]
    rec = play(t, Terminal(stdin=stdin, echo=lambda s: None), None)
    return [x.strip() for x in typed], rec


@pytest.mark.parametrize("rules,players,seed,stop", [
    ("seed", 2, 3, 0),              # saved at the swap (R5): continued from the swap
    ("seed", 3, 4, 6),
    ("boothj5", 3, 5, 9),           # H16's forced opening played again, V2
])
def test_a_loaded_game_ends_as_the_uninterrupted_one(tmp_path, monkeypatch, rules, players,
                                                     seed, stop):
    monkeypatch.setenv("HOME", str(tmp_path))
    typed, whole = _moves_typed(players, rules, seed, ["random"])   # bots use the stream
    assert whole["status"] == "finished" and len(typed) > stop + 2
    save = tmp_path / "g.json"
    first = typed[:stop] + (["hint", "save", "quit"] if stop else ["save", "quit"])
    r = run("play", "--players", players, "--rules", rules, "--seed", seed, "--opponents",
            "random", "--save", save, "--hint-rollouts", 20, input="\n".join(first) + "\n")
    assert r.exit_code == 0 and load(save)["status"] == "unfinished", r.output
    if stop == 6:                          # a file without the mask: the face-ups give it
        game = json.loads(save.read_text())
        del game["swap_mask"]
        save.write_text(json.dumps(game))
    rest = typed[stop:stop + 1] + ["hint"] + typed[stop + 1:]         # a hint changes nothing
    r = run("play", "--load", save, "--hint-rollouts", 20, input="\n".join(rest) + "\n")
    assert r.exit_code == 0, r.output
    assert "Continuing the saved game" + ("" if stop else " at the swap") in r.output
    done = load(save)
    assert done["status"] == "finished" and done["moves"] == whole["moves"]
    assert done["result"] == whole["result"] and done["turns"] == whole["turns"]
    r = run("play", "--load", save)
    assert r.exit_code == 2 and "is finished" in r.output and r.output.count("\n") == 1


def test_load_refuses_options_of_its_own_and_a_changed_game(tmp_path):
    save = tmp_path / "g.json"
    typed, _ = _moves_typed(2, "seed", 3, ["random"])
    assert run("play", "--players", 2, "--seed", 3, "--opponents", "random", "--save", save,
               input="\n".join(typed[:4]) + "\n").exit_code == 0
    r = run("play", "--load", save, "--seed", 4)
    assert r.exit_code == 2 and "drop --seed" in r.output
    game = json.loads(save.read_text())
    bots = [i for i, e in enumerate(game["moves"]) if e["seat"] != 0]
    assert bots
    game["moves"][bots[0]]["move"] = {"pickup": True}
    save.write_text(json.dumps(game))
    r = run("play", "--load", save)
    assert r.exit_code == 2 and "does not continue as saved" in r.output
    assert r.output.count("\n") == 1 and "{" not in r.output

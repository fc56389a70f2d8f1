"""Summary-first output (issue 24): `odds` and `run --n` on a procedure with many outcomes print a
battle summary within one screen; `--full` the listing; `--format table|csv|json|markdown`;
Distribution/Sample spread and quantiles.

Everything is counted by hand on two small procedures.

``duel``: each side rolls a d6, a = attacker's die, d = defender's.  36 equally likely pairs.
    won  (a > d): 15 pairs, 5/12     reason attacker_higher
    lost (a < d): 15 pairs, 5/12     reason defender_higher
    tie  (a = d):  6 pairs, 1/6      reason equal
    hits = a, so hits is a fair d6:
        mean 7/2; E[a²] = 91/6, variance 91/6 - 49/4 = 35/12, sd sqrt(35/12) = 1.7078
        at least k: (7 - k)/6 -> 1: 100%, 2: 83.33%, 3: 66.67%, 4: 50%, 5: 33.33% (5 columns at most)
        lower median: P(a <= 3) = 1/2 -> 3; 0.9-quantile: P(a <= 5) = 5/6 < 0.9 -> 6
    margin = |a - d|: 0 in 6 pairs, 1 in 10, 2 in 8, 3 in 6, 4 in 4, 5 in 2
        mean (10 + 16 + 18 + 16 + 10)/36 = 70/36 = 35/18 = 1.9444
        E[m²] = (10 + 32 + 54 + 64 + 50)/36 = 210/36 = 35/6; variance 35/6 - 1225/324 = 665/324
        at least 1: 30/36 = 83.33%, 2: 20/36 = 55.56%, 3: 12/36 = 33.33%, 4: 6/36 = 16.67%, 5: 2/36 = 5.56%
        lower median: P(m <= 1) = 16/36 < 1/2, P(m <= 2) = 24/36 -> 2
    distinct outcomes: won carries (a, a - d): 15 distinct, lost 15, tie 6: 36 (> 12: summarised)

``coin``: one d6, 1-3 heads, 4-6 tails: 2 outcomes (listed, as before the summary existed).
"""

from __future__ import annotations

import csv
import io
import json
import math
from fractions import Fraction

import pytest
from conftest import procedure, ruleset_text

from interpreter import UsageError, odds
from interpreter.api import monte_carlo
from interpreter.cli import main

DUEL = procedure(
    """
    let a = 1d6
    let d = 1d6
    if a > d then
      outcome won(reason = "attacker_higher", margin = a - d, hits = a)
    elif a < d then
      outcome lost(reason = "defender_higher", margin = d - a, hits = a)
    else
      outcome tie(reason = "equal", margin = 0, hits = a)
    end
    """
)
COIN = procedure(
    """
    let die = 1d6
    if die <= 3 then
      outcome heads(die = die)
    else
      outcome tails(die = die)
    end
    """
)


@pytest.fixture
def duel_file(write_yaml):
    return str(write_yaml(ruleset_text({"duel": DUEL, "coin": COIN})))


@pytest.fixture
def duel(make_ruleset):
    return make_ruleset({"duel": DUEL, "coin": COIN})


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def section(text: str, title: str) -> list[str]:
    """The lines under ``title:`` up to the next unindented line, stripped."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("  ")), len(lines))
    return [line.strip() for line in lines[start:end]]


# ---- Distribution and Sample: spread and quantiles --------------------------------------------


def test_variance_std_and_quantiles_of_a_d6(duel):
    result = odds(duel, "duel")
    assert result.means()["hits"].value == Fraction(7, 2)
    assert result.variance("hits") == Fraction(35, 12)
    assert result.std("hits") == pytest.approx(math.sqrt(35 / 12))
    assert result.quantile("hits", Fraction(1, 2)) == 3
    assert result.quantile("hits", 0.9) == 6
    assert result.quantile("hits", 0) == 1
    assert result.quantile("hits", 1) == 6


def test_variance_and_median_of_the_margin(duel):
    result = odds(duel, "duel")
    assert result.variance("margin") == Fraction(665, 324)
    assert result.quantile("margin", 0.5) == 2
    assert result.quantile("margin", Fraction(16, 36)) == 1  # exactly the mass of 0 and 1


def test_spread_of_a_field_some_outcomes_lack(make_ruleset):
    # miss (1-4) carries no damage; hit: 5 -> 2, 6 -> 3.  Over the hits: mean 5/2, variance 1/4
    ruleset = make_ruleset({"strike": procedure(
        """
        let die = 1d6
        if die >= 5 then
          outcome hit(damage = die - 3)
        else
          outcome miss
        end
        """
    )})
    result = odds(ruleset, "strike")
    assert result.variance("damage") == Fraction(1, 4)
    assert result.quantile("damage", 0.5) == 2


def test_spread_and_quantile_arguments_are_checked(duel):
    result = odds(duel, "duel")
    with pytest.raises(UsageError, match="did you mean 'hits'"):
        result.variance("hit")
    with pytest.raises(UsageError, match="'reason' is not a number"):
        result.std("reason")
    with pytest.raises(UsageError, match="from 0 to 1"):
        result.quantile("hits", 1.5)
    with pytest.raises(UsageError, match="from 0 to 1"):
        result.quantile("hits", float("nan"))
    with pytest.raises(UsageError, match="not bool"):
        result.quantile("hits", True)
    with pytest.raises(UsageError, match="not int"):
        result.variance(3)


def test_sample_spread_and_quantiles_by_hand(duel):
    sample = monte_carlo(duel, "duel", trials=600, seed=5)
    # the estimates, recomputed from the counts: the unbiased variance divides by n - 1
    values = [(outcome.get("hits"), count) for outcome, count in sample.counts]
    n = sum(c for _, c in values)
    mean = sum(v * c for v, c in values) / n
    variance = sum((v - mean) ** 2 * c for v, c in values) / (n - 1)
    assert sample.variance("hits") == pytest.approx(variance)
    assert sample.std("hits") == pytest.approx(math.sqrt(variance))
    assert sample.variance("hits") == pytest.approx(35 / 12, rel=0.15)  # near the exact 35/12
    ordered = sorted(v for v, c in values for _ in range(c))
    assert sample.quantile("hits", 0.5) == ordered[(n + 1) // 2 - 1]  # lower median: the 300th of 600
    assert sample.quantile("hits", 0) == 1
    with pytest.raises(UsageError, match="not a number"):
        sample.quantile("reason", 0.5)


# ---- the summary of exact odds -----------------------------------------------------------------


def test_many_outcomes_are_summarised(duel_file):
    code, out, _ = run(["odds", duel_file, "duel"])
    assert code == 0
    assert out.splitlines()[0] == "t duel: exact odds; a summary of 36 distinct outcomes (--full lists each)"
    # the outcome names, most likely first (won and lost tie at 5/12: by name)
    assert section(out, "outcome:") == [
        "lost  5/12  41.67%  #################",
        "won   5/12  41.67%  #################",
        "tie   1/6   16.67%  #######",
    ]
    assert [line.split()[0] for line in section(out, "reason:")] == ["attacker_higher", "defender_higher", "equal"]
    numbers = section(out, "numbers (mean and sd where the field is present; at least k over every outcome):")
    assert numbers[0].split() == ["field", "mean", "sd", "min", "max", "at", "least", "1", "at", "least", "2", "at", "least", "3",
                                  "at", "least", "4", "at", "least", "5"]
    # margin: mean 35/18, sd sqrt(665/324) = 1.4326; at least 1..5: 30, 20, 12, 6, 2 of 36
    assert numbers[1].split() == ["margin", "35/18", "=", "1.9444", "1.4326", "0", "5", "83.33%", "55.56%", "33.33%", "16.67%", "5.56%"]
    # hits: mean 7/2, sd sqrt(35/12) = 1.7078; at least 1..5: 6, 5, 4, 3, 2 of 6
    assert numbers[2].split() == ["hits", "7/2", "=", "3.5000", "1.7078", "1", "6", "100.00%", "83.33%", "66.67%", "50.00%", "33.33%"]
    assert "won(reason" not in out  # no listing


def test_full_lists_every_outcome(duel_file):
    code, out, _ = run(["odds", duel_file, "duel", "--full"])
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "t duel: exact odds"
    listed = [line for line in lines if line.startswith("  ") and "(" in line and not line.startswith("  mean")]
    assert len(listed) == 36
    assert all("1/36" in line for line in listed)  # every pair of dice is its own outcome


def test_few_outcomes_keep_the_listing(duel_file):
    code, out, _ = run(["odds", duel_file, "coin"])
    assert code == 0
    assert out.splitlines()[0] == "t coin: exact odds"
    assert "heads(die = 1)" in out and "summary" not in out


def test_summary_with_digits(duel_file):
    _, out, _ = run(["odds", duel_file, "duel", "--digits", "3"])
    assert section(out, "outcome:")[0].split() == ["lost", "0.417", "#################"]


def test_summary_of_a_sample(duel_file):
    code, out, _ = run(["run", duel_file, "duel", "--n", "1000", "--seed", "3"])
    assert code == 0
    assert out.splitlines()[0] == "t duel: sampled: 1000 plays (seed 3), ± one standard error; a summary of 36 distinct outcomes (--full lists each)"
    rows = {line.split()[0]: line.split() for line in section(out, "outcome:")}
    document = json.loads(run(["run", duel_file, "duel", "--n", "1000", "--seed", "3", "--json"])[1])
    wins = sum(o["count"] for o in document["outcomes"] if o["name"] == "won")
    share = wins / 1000
    # count, share in percent, its standard error sqrt(p (1 - p) / n) in points
    assert rows["won"][1:5] == [str(wins), f"{share * 100:.2f}%", "±", f"{math.sqrt(share * (1 - share) / 1000) * 100:.2f}"]
    numbers = section(out, "numbers (mean and sd where the field is present; at least k over every outcome):")
    assert numbers[0].split()[:5] == ["field", "mean", "±", "error", "sd"]
    _, full, _ = run(["run", duel_file, "duel", "--n", "1000", "--seed", "3", "--full"])
    assert full.splitlines()[0] == "t duel: sampled: 1000 plays (seed 3), ± one standard error (in points)"
    assert len([line for line in full.splitlines() if line.startswith("  ") and "(" in line and "mean" not in line]) == 36


def test_full_without_n_is_refused(duel_file):
    code, _, err = run(["run", duel_file, "duel", "--full"])
    assert code == 2
    assert "--full lists many plays: give --n TRIALS too" in err
    assert err.startswith(f"<command line>:1:{len('wartable run ' + duel_file + ' duel ') + 1}:")  # at the --full


# ---- one screen ----------------------------------------------------------------------------------


def test_a_whole_battle_fits_one_screen():
    # eia battle, one ship a side: 11 outcomes, each listed line about 230 characters wide; the inputs 870
    code, out, _ = run(["odds", "eia", "battle", "--set", "attacker=[{kind: warship}]", "--set", "defender=[{kind: warship}]"])
    assert code == 0
    lines = out.splitlines()
    assert "a summary of 11 distinct outcomes" in lines[0]
    assert len(lines) <= 60 and max(map(len, lines)) <= 200
    # 9 inputs and 18 choices; all but the two fleets (required) at their defaults; each ship as it was given,
    # its other fields at the ship type's defaults (brief_values)
    assert lines[1] == "inputs: attacker = [{kind: warship}], defender = [{kind: warship}]"
    assert lines[2] == "  (25 other inputs at their defaults; --full lists every input)"
    # trivial_one_round 133/243: the both-fit 16/81 plus the one-damaged 667/3888 twice plus 13/1944 (both damaged)
    assert section(out, "reason:")[0].split()[:3] == ["trivial_one_round", "133/243", "54.73%"]
    assert Fraction(16, 81) + 2 * Fraction(667, 3888) + Fraction(13, 1944) == Fraction(133, 243)


def test_a_sampled_three_a_side_battle_fits_one_screen():
    code, out, _ = run(["run", "eia", "battle", "--situation", "rulesdata/eia_situations/three_a_side.yaml", "--n", "300", "--seed", "1"])
    assert code == 0
    lines = out.splitlines()
    assert len(lines) <= 60 and max(map(len, lines)) <= 200


def test_long_fractions_are_put_away(make_ruleset, write_yaml):
    # 30d6 summed: every chance is a count of ways over 6**30 (24 digits), reduced by at most a few
    # factors: every fraction is longer than 20 characters, so every line shows a percentage alone
    path = write_yaml(ruleset_text({"many": procedure("let total = 30d6\noutcome v(total = total)")}))
    _, out, _ = run(["odds", str(path), "many", "--full"])
    for line in out.splitlines()[1:]:
        fraction = next((cell for cell in line.split() if "/" in cell), "")
        assert not fraction, line
    assert out.count("%") >= 151  # 30 .. 180: 151 outcomes, each with its percentage
    # the mean of the total where it is over 100 (a long fraction: the mass of 80 outcomes) is a decimal alone
    body = "let total = 30d6\nif total > 100 then\n  outcome big(total = total)\nend\noutcome small"
    _, out, _ = run(["odds", str(write_yaml(ruleset_text({"some": procedure(body)}))), "some", "--full"])
    mean_line = next(line for line in out.splitlines() if line.startswith("  mean total"))
    assert "/" not in mean_line.split("(when present")[0], mean_line
    assert mean_line.split()[2].replace(".", "").isdigit()


# ---- --format --------------------------------------------------------------------------------------


def test_format_csv(duel_file):
    code, out, _ = run(["odds", duel_file, "coin", "--format", "csv"])
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["outcome", "die", "probability", "p"]
    # each face 1/6; heads first (3 faces, equal weight: by name, then by fields)
    assert sorted(rows[1:]) == sorted([["heads", str(face), "1/6", repr(1 / 6)] for face in (1, 2, 3)]
                                      + [["tails", str(face), "1/6", repr(1 / 6)] for face in (4, 5, 6)])


def test_format_markdown_escapes_cells(write_yaml):
    path = write_yaml(ruleset_text({"p": procedure('let d = 1d2\nif d == 1 then\n  outcome v(word = "a|b")\nelse\n  outcome v(word = "c")\nend')}))
    code, out, _ = run(["odds", str(path), "p", "--format", "markdown"])
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "| outcome | word | probability | % |"
    assert lines[1] == "|---|---|---:|---:|"
    assert "| v | a\\|b | 1/2 | 50.0000% |" in lines


def test_format_json_is_json(duel_file):
    assert json.loads(run(["odds", duel_file, "coin", "--format", "json"])[1]) == json.loads(run(["odds", duel_file, "coin", "--json"])[1])


def test_format_table_is_the_text(duel_file):
    assert run(["odds", duel_file, "duel", "--format", "table"])[1] == run(["odds", duel_file, "duel"])[1]


def test_format_csv_with_by(duel_file):
    _, out, _ = run(["odds", duel_file, "duel", "--by", "outcome", "--format", "csv"])
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["outcome", "probability", "p"]
    assert {row[0]: row[1] for row in rows[1:]} == {"won": "5/12", "lost": "5/12", "tie": "1/6"}


def test_format_csv_refused_with_what_if(duel_file):
    code, _, err = run(["odds", duel_file, "coin", "--format", "csv", "--what-if", "X+1"])
    assert code == 2
    assert "--what-if compares two sets of odds" in err


def test_format_csv_with_an_open_choice(write_yaml):
    # aim high: a hit on 5-6 (1/3); aim low: a hit on 3-6 (2/3).  One block of rows per option, in
    # the order odds_by_choice gives them (high first, as declared), the option in its own column.
    body = 'let d = 1d6\nif (aim == "high" and d >= 5) or (aim == "low" and d >= 3) then\n  outcome hit\nend\noutcome miss'
    path = write_yaml(ruleset_text({"p": procedure(body, choices='{aim: {options: [high, low], default: high, rule: "r"}}')}))
    code, out, _ = run(["odds", str(path), "p", "--format", "csv"])
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["aim", "outcome", "probability", "p"]
    assert [row[:3] for row in rows[1:]] == [["high", "miss", "2/3"], ["high", "hit", "1/3"], ["low", "hit", "2/3"], ["low", "miss", "1/3"]]


def test_format_csv_writes_the_truncated_mass(write_yaml):
    # a coin flipped until heads, at most 3 times (limit 3): heads on flip 1, 2, 3 with 1/2, 1/4, 1/8;
    # the 1/8 where all three are tails still wants to flip: the truncated mass, the last row
    body = "let flips = 0\nlet heads = false\nwhile not heads limit 3 do\n  set flips = flips + 1\n  set heads = 1d2 == 1\nend\noutcome done(flips = flips)"
    path = write_yaml(ruleset_text({"p": procedure(body)}))
    code, out, err = run(["odds", str(path), "p", "--format", "csv"])
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows == [["outcome", "flips", "probability", "p"], ["done", "1", "1/2", "0.5"], ["done", "2", "1/4", "0.25"],
                    ["done", "3", "1/8", "0.125"], ["(truncated)", "", "1/8", "0.125"]]


def test_summary_lists_eight_values_and_the_rest_and_an_absent_field(write_yaml):
    # a d12 names the outcome o1..o12 (1/12 each), a d2 gives x: 24 distinct outcomes of 1/24.
    # Equal shares go by name: o1, o10, o11, o12, o2, o3, o4, o5, then 4 others, 4/12 = 1/3.
    # Only o1 carries crit (yes): 1/12; the other 11/12 have no such field.
    branches = "\n".join(
        f"{'if' if k == 1 else 'elif'} d == {k} then\n  outcome o{k}(x = x{', crit = true' if k == 1 else ''})" for k in range(1, 13)
    )
    path = write_yaml(ruleset_text({"p": procedure(f"let d = 1d12\nlet x = 1d2\n{branches}\nend\noutcome never")}))
    code, out, _ = run(["odds", str(path), "p"])
    assert code == 0
    assert [line.split()[0] for line in section(out, "outcome:")][:8] == ["o1", "o10", "o11", "o12", "o2", "o3", "o4", "o5"]
    assert section(out, "outcome:")[8].split()[:5] == ["(4", "other", "values)", "1/3", "33.33%"]
    assert [line.split()[:3] for line in section(out, "crit:")] == [["yes", "1/12", "8.33%"], ["(no", "such", "field)"]]
    assert section(out, "crit:")[1].split()[3:5] == ["11/12", "91.67%"]
    # x is 1 or 2, each 1/2: mean 3/2, sd 1/2, at least 1: 100%, at least 2: 50%
    numbers = section(out, "numbers (mean and sd where the field is present; at least k over every outcome):")
    assert numbers[1].split() == ["x", "3/2", "=", "1.5000", "0.5000", "1", "2", "100.00%", "50.00%"]


def test_summary_says_what_was_truncated(write_yaml):
    # flips until heads, at most 3, and a d6 kept (so that 3 x 6 = 18 outcomes are summarised):
    # the 1/8 with three tails is not explored
    body = "let flips = 0\nlet heads = false\nwhile not heads limit 3 do\n  set flips = flips + 1\n  set heads = 1d2 == 1\nend\noutcome done(flips = flips, die = 1d6)"
    path = write_yaml(ruleset_text({"p": procedure(body)}))
    code, out, _ = run(["odds", str(path), "p"])
    assert code == 0
    assert "a summary of 18 distinct outcomes" in out
    assert out.splitlines()[-1] == "truncated (not explored): 1/8 = 0.125"
    # done carries 7/8 of the mass
    assert section(out, "outcome:") == ["done  7/8  87.50%  ###################################"]


def test_open_choices_print_the_inputs_once(write_yaml):
    # aim high: a hit on need + 2 or more; aim low: on need or more.  With need = 3: high 2/6, low 4/6.
    body = 'let d = 1d6\nif (aim == "high" and d >= need + 2) or (aim == "low" and d >= need) then\n  outcome hit\nend\noutcome miss'
    path = write_yaml(ruleset_text({"p": procedure(body, inputs="{need: {type: int}}", choices='{aim: {options: [high, low], default: high, rule: "r"}}')}))
    code, out, _ = run(["odds", str(path), "p", "--set", "need=3"])
    assert code == 0
    # the inputs line carries the choices too: under the others, the "with" line says what changed
    assert out.count("inputs:") == 1
    assert out.splitlines()[:3] == ["with aim = high:", "t p: exact odds", "inputs: need = 3, aim = high"]
    assert "with aim = low:\nt p: exact odds\n  hit   2/3" in out


def test_summary_leaves_out_inputs_at_their_defaults(write_yaml):
    # two d6 (36 outcomes: summarised) and two inputs with defaults: bonus given as 1, spare left at its 0
    path = write_yaml(ruleset_text({"p": procedure("let a = 1d6\nlet d = 1d6\noutcome v(a = a + bonus + spare, d = d)",
                                                   inputs="{bonus: {type: int, default: 0}, spare: {type: int, default: 0}}")}))
    _, out, _ = run(["odds", str(path), "p", "--set", "bonus=1"])
    assert out.splitlines()[1:3] == ["inputs: bonus = 1", "  (1 other input at its default; --full lists every input)"]
    _, out, _ = run(["odds", str(path), "p"])
    assert out.splitlines()[1] == "inputs: 2 inputs at their defaults (--full lists every input)"
    _, out, _ = run(["odds", str(path), "p", "--full"])
    assert out.splitlines()[1] == "inputs: bonus = 0, spare = 0"


def test_long_text_values_and_list_fields_stay_within_the_screen(write_yaml):
    # 13 outcomes (a d13), each with a 300-character text and a list: the text is cut to 80
    # characters in the summary, the list field named as not summarised
    word = "x" * 300
    branches = "\n".join(f"{'if' if k == 1 else 'elif'} d == {k} then\n  outcome o{k}(text = \"{word}{k}\", dice = [d, d])" for k in range(1, 14))
    path = write_yaml(ruleset_text({"p": procedure(f"let d = 1d13\n{branches}\nend\noutcome never")}))
    code, out, _ = run(["odds", str(path), "p"])
    assert code == 0
    lines = out.splitlines()
    assert max(map(len, lines)) <= 200 and len(lines) <= 60
    assert section(out, "text:")[0].startswith("x" * 79 + "…  1/13  7.69%")
    assert lines[-1] == "not summarised (lists and records; --full shows them): dice"


def test_summary_carries_the_readings_a_result_rests_on(duel):
    # a result that names the ruleset's readings (as results of the readings work do) keeps them in
    # its summary, where render prints them beside the illustrative tables
    from types import SimpleNamespace

    from interpreter.battle_summary import distribution_summary

    result = odds(duel, "duel")
    named = SimpleNamespace(**{k: getattr(result, k) for k in ("ruleset", "procedure", "inputs", "illustrative_tables", "outcomes", "truncated")},
                            readings=("simultaneous_fire",))
    assert distribution_summary(named)["readings"] == ["simultaneous_fire"]
    assert "readings" not in distribution_summary(result)


def test_means_of_a_short_and_a_long_fraction_align_without_crashing():
    # A mean whose fraction is short shows it and its decimal (two cells), one whose fraction is too long
    # its decimal only (one cell): `odds` once crashed aligning them (IndexError in render._align).
    # Columns padded to the widest cell: widths 2, 6 and 5.
    from interpreter.render import _align

    assert _align([["a", "1/2", "(0.5)"], ["bb", "0.3333"]]) == ["a   1/2     (0.5)", "bb  0.3333"]


def test_odds_on_a_long_minefield_prints_its_means():
    # 101 mines: the mean mines left is a fraction too long to print, the mean mines swept is 0 (a short
    # one): the means block holds both, and the command ends normally (it crashed from 101 mines up).
    stdout, stderr = io.StringIO(), io.StringIO()
    argv = ["odds", "naval_mines", "attack_through_minefield", "--set", "units=[{kind: battleship}, {kind: cruiser}]",
            "--set", "mines=101"]
    assert main(argv, stdout=stdout, stderr=stderr) == 0, stderr.getvalue()
    means = [line.split()[1] for line in stdout.getvalue().splitlines() if line.strip().startswith("mean ")]
    assert {"mines_swept", "mines_left"} <= set(means)

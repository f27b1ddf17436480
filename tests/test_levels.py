"""The levels and their groups are defined once (fixtures/verdict/levels.py), in a module that imports nothing."""
import subprocess
import sys

from fixtures.verdict.levels import GROUP_LEVELS, GROUPS, LEVEL_GROUP, LEVEL_ORDER, LEVEL_RANK, group_of

from .paths import ROOT


def test_every_level_is_in_one_group_and_the_groups_keep_the_order():
    assert [lv for g in GROUPS for lv in GROUP_LEVELS[g]] == list(LEVEL_ORDER)
    assert all(LEVEL_GROUP[lv] == g for g in GROUPS for lv in GROUP_LEVELS[g])
    assert sorted(LEVEL_ORDER, key=LEVEL_RANK.get) == list(LEVEL_ORDER)


def test_a_level_not_known_is_taken_as_must():
    assert group_of(None) == group_of("") == group_of("SHOULDN'T") == "MUST"
    assert group_of("SHOULD NOT") == "SHOULD"


def test_the_levels_module_imports_nothing():
    code = ("import sys; before = set(sys.modules); import fixtures.verdict.levels; "
            "print(sorted(set(sys.modules) - before - {'fixtures', 'fixtures.verdict', 'fixtures.verdict.levels'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"

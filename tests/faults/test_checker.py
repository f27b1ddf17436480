"""The fault checker (fixtures/faults/checker.py): counts and names from ids alone."""
import pytest

from fixtures.faults.checker import tally

SENT = [f"m{i:02d}" for i in range(6)]


def test_every_confirmed_message_delivered_once_is_neither_lost_nor_duplicated():
    t = tally("restart", SENT, SENT, SENT)
    assert (t.sent, t.confirmed, t.delivered, t.lost, t.duplicated) == (6, 6, 6, 0, 0)
    assert t.lost_ids == () and t.duplicated_ids == ()


def test_a_confirmed_message_never_delivered_is_lost_and_named():
    t = tally("kill", SENT, SENT, ["m00", "m01", "m03", "m05"])
    assert t.lost == 2 and t.lost_ids == ("m02", "m04")
    assert "lost: m02, m04" in t.describe()


def test_an_unconfirmed_message_that_never_came_is_not_lost():
    t = tally("restart", SENT, SENT[:4], SENT[:4])
    assert (t.sent, t.confirmed, t.lost) == (6, 4, 0)


def test_an_unconfirmed_message_that_came_is_delivered_not_duplicated():
    t = tally("cut", SENT, SENT[:4], SENT)
    assert (t.delivered, t.lost, t.duplicated) == (6, 0, 0)


def test_every_copy_beyond_the_first_is_a_duplicate():
    t = tally("cut", SENT, SENT, [*SENT, "m01", "m01", "m04"])
    assert t.delivered == 9 and t.duplicated == 3
    assert t.duplicated_ids == ("m01", "m04")


def test_the_record_carries_every_field_of_the_row():
    rec = tally("pause", SENT, SENT, [*SENT[1:], "m02"]).as_record()
    assert rec == {"fault": "pause", "sent": 6, "confirmed": 6, "delivered": 6, "lost": 1, "duplicated": 1,
                   "lost_ids": ["m00"], "duplicated_ids": ["m02"]}


@pytest.mark.parametrize("args, text", [
    (("flood", SENT, SENT, SENT), "unknown fault"),
    (("restart", [*SENT, "m00"], SENT, SENT), "sent ids repeat"),
    (("restart", SENT, ["x"], SENT), "confirmed ids that were never sent"),
    (("restart", SENT, SENT, [*SENT, "sentinel"]), "delivered ids that were never sent"),
])
def test_inconsistent_ids_are_the_runs_error_not_a_count(args, text):
    with pytest.raises(ValueError, match=text):
        tally(*args)

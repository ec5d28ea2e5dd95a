"""Shared by the exercise tests: the hint a wrong answer gets (it must be refused)."""
from lib.exercises import check


def hint(key, answer):
    """The hint of ``check(key, answer)``, asserting the answer is refused."""
    verdict = check(key, answer)
    assert not verdict.correct, (key, answer)
    return verdict.hint

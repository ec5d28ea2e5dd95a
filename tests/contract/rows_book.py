"""Contract rows of the book's plumbing: lib.chapters and lib.published."""
from lib import chapters, published

from .framework import Call, Kind, choice

CALLS = [
    Call("chapters.stems", chapters.stems, lambda: ((), dict(kind="explore")),
         {"kind": choice(skip=("None",))}),
    Call("published.chapter_of", published.chapter_of, lambda: (("rod_eb_omega1",), {}),
         {"key": Kind({"unknown": lambda v: "nochapter_x", "unhashable": lambda v: [v],
                       "None": lambda v: None, "number": lambda v: 1.0}, 0)}),
]
MODELS = []

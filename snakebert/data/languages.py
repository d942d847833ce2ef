"""The languages the language rule (filtering.py) can keep, those `py3langid` identifies, and the config check of
`clean.languages`. The workflow's parse calls language_problems, so this module imports neither `py3langid` nor
datatrove, and loads no model: the codes are listed here, as the pinned py3langid's model holds them (reading them
from its file takes a third of a second, at every parse); `model_languages` reads them there, and a test holds the
two equal."""

import importlib.util
import io
import lzma

import numpy as np

PACKAGE = "py3langid"


# fmt: off
IDENTIFIED = (  # py3langid 0.4.0's languages, in its model's order
    "af", "am", "ar", "as", "az", "be", "bg", "bn", "br", "bs", "ca", "cs", "cy", "da", "de", "el", "en", "eo",
    "es", "et", "eu", "fa", "fi", "fr", "fy", "ga", "gd", "gl", "gu", "ha", "he", "hi", "hr", "ht", "hu", "hy",
    "id", "ig", "is", "it", "ja", "jv", "ka", "kk", "km", "kn", "ko", "ku", "ky", "la", "lg", "ln", "lo", "lt",
    "lv", "mg", "mk", "ml", "mn", "mr", "ms", "my", "ne", "nl", "no", "om", "or", "pa", "pl", "ps", "pt", "qu",
    "ro", "ru", "sa", "si", "sk", "sl", "so", "sq", "sr", "sv", "sw", "ta", "te", "th", "tl", "tr", "ug", "uk",
    "ur", "uz", "vi", "xh", "yo", "zh", "zu", "zxx", "ace", "bcl", "dz", "ext", "gcf", "gom", "grc", "gug", "hbo",
    "kik", "nso", "pcm", "rw", "se", "sn", "st", "an", "ary", "crh", "fo", "fuv", "gcr", "guw", "kab", "lb", "lij",
    "ltg", "uzs", "wa", "sdh", "arz", "ba", "mt", "nn", "oc", "tg", "tk", "tt", "vec", "vo", "wuu", "yue",
)
# fmt: on


def model_languages() -> tuple[str, ...]:
    """The language codes py3langid's model identifies, in its order, each once, read from its file."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE  # numpy alone: it loads no model

    with np.load(io.BytesIO(lzma.decompress((MODEL_DIR / MODEL_FILE).read_bytes()))) as model:
        return tuple(dict.fromkeys(model["classes"].tolist()))


def language_problems(codes: list[str]) -> list[str]:
    """What is wrong with `clean.languages`: py3langid missing, or a code it does not identify."""
    if importlib.util.find_spec(PACKAGE) is None:
        return [f"config clean.languages needs the Python package {PACKAGE!r}; install requirements.txt"]
    known = IDENTIFIED
    listed = ", ".join(sorted(known))
    return [
        f"config clean.languages: {code!r} is not a language {PACKAGE} identifies (it knows: {listed})"
        for code in codes
        if code not in known
    ]

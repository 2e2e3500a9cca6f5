"""Stable string hashes that TensorFlow uses for Keras's hashing layers, in pure Python.

``fingerprint64`` is FarmHash's ``Fingerprint64`` (``farmhashna::Hash64``), what
``tf.strings.to_hash_bucket_fast`` and ``tf.sparse.cross_hashed`` use; ``siphash64`` is
SipHash-2-4 with a 128-bit key, what ``tf.strings.to_hash_bucket_strong`` uses;
``fingerprint_cat64`` combines two fingerprints as TensorFlow's ``FingerprintCat64``.
All work on ``bytes`` and return unsigned 64-bit ints.
"""
from __future__ import annotations

import struct

_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F
_KMUL = 0xC6A4A7935BD1E995


def _u64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _u32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rot(v: int, shift: int) -> int:
    return ((v >> shift) | (v << (64 - shift))) & _MASK


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _mix16(u: int, v: int, mul: int) -> int:
    a = _shift_mix(((u ^ v) * mul) & _MASK)
    b = _shift_mix(((v ^ a) * mul) & _MASK)
    return (b * mul) & _MASK


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_u64(s, 0) + _K2) & _MASK
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _MASK
        d = ((_rot(a, 25) + b) * mul) & _MASK
        return _mix16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _mix16(n + (_u32(s, 0) << 3), _u32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K1) & _MASK
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _MASK
    d = (_u64(s, n - 16) * _K2) & _MASK
    return _mix16((_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK,
                  (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K2) & _MASK
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _MASK
    d = (_u64(s, n - 16) * _K2) & _MASK
    y = (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK
    z = _mix16(y, (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_u64(s, 16) * mul) & _MASK
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _MASK
    h = ((z + _u64(s, n - 24)) * mul) & _MASK
    return _mix16((_rot((e + f) & _MASK, 43) + _rot(g, 30) + h) & _MASK,
                  (e + _rot((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple:
    w, x, y, z = (_u64(s, i + k) for k in (0, 8, 16, 24))
    a = (a + w) & _MASK
    b = _rot((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rot(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(s: bytes) -> int:
    """FarmHash ``Fingerprint64`` of ``s``."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _u64(s, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _u64(s, i + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rot((y + v[1] + _u64(s, i + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _u64(s, i + 40)) & _MASK
        z = (_rot((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak32(s, i, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak32(s, i + 32, (z + w[1]) & _MASK, (y + _u64(s, i + 16)) & _MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v, w = (v0, v[1]), (w0, w[1])
    x = (_rot((x + y + v[0] + _u64(s, i + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rot((y + v[1] + _u64(s, i + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _u64(s, i + 40)) & _MASK
    z = (_rot((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32(s, i, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(s, i + 32, (z + w[1]) & _MASK, (y + _u64(s, i + 16)) & _MASK)
    z, x = x, z
    return _mix16((_mix16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                  (_mix16(v[1], w[1], mul) + x) & _MASK, mul)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TensorFlow's ``FingerprintCat64``: an order-dependent combination of two hashes."""
    result = fp1 ^ _KMUL
    result ^= (_shift_mix((fp2 * _KMUL) & _MASK) * _KMUL) & _MASK
    result = (result * _KMUL) & _MASK
    result = (_shift_mix(result) * _KMUL) & _MASK
    return _shift_mix(result)


def _sip_round(v0, v1, v2, v3):
    v0 = (v0 + v1) & _MASK
    v1 = _rot(v1, 64 - 13) ^ v0
    v0 = _rot(v0, 32)
    v2 = (v2 + v3) & _MASK
    v3 = _rot(v3, 64 - 16) ^ v2
    v0 = (v0 + v3) & _MASK
    v3 = _rot(v3, 64 - 21) ^ v0
    v2 = (v2 + v1) & _MASK
    v1 = _rot(v1, 64 - 17) ^ v2
    v2 = _rot(v2, 32)
    return v0, v1, v2, v3


def siphash64(key: tuple, s: bytes) -> int:
    """SipHash-2-4 of ``s`` under the 128-bit key ``(key[0], key[1])`` (two uint64)."""
    k0, k1 = key[0] & _MASK, key[1] & _MASK
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573
    n = len(s)
    tail = n - n % 8
    padded = s[tail:] + bytes(7 - n % 8) + bytes([n & 0xFF])
    for block in [s[i:i + 8] for i in range(0, tail, 8)] + [padded]:
        m = struct.unpack("<Q", block)[0]
        v3 ^= m
        for _ in range(2):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3

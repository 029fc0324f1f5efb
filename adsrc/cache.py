"""Specialization cache: one compiled gradient per key, LRU-bounded, thread-safe.

A key is what selects a different program: the values (with their types) of
static arguments and the structure of the differentiated arguments. Array
shapes and values are never part of a key. A key is transformed once even
when many threads ask for it at the same time.

`cache_info()` returns a `CacheInfo(hits, misses, maxsize, currsize)` like
`functools.lru_cache`. Why a call missed is logged at DEBUG level on the
`adsrc.cache` logger (set ADSRC_LOG_MISSES=1 to print it without logging set up).
"""

import collections
import logging
import os
import sys
import threading

log = logging.getLogger("adsrc.cache")


def made_once(table, key, make, limit=256):
    """table[key], made by make() the first time; the table is emptied when it grows past limit (what
    transformations make once per function: lifted copies, rewritten callees, classes)."""
    made = table.get(key)
    if made is None:
        if len(table) > limit:
            table.clear()
        made = table[key] = make()
    return made


CacheInfo = collections.namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"])

DEFAULT_MAXSIZE = 64


class SpecializationCache:
    def __init__(self, maxsize=DEFAULT_MAXSIZE, name="function"):
        if maxsize is not None and (not isinstance(maxsize, int) or maxsize < 1):
            raise ValueError(f"cache_size must be a positive integer or None, got {maxsize!r}")
        self.maxsize = maxsize
        self.name = name
        self._data = collections.OrderedDict()
        self._lock = threading.Lock()
        self._building = {}            # key -> Event while one thread transforms it
        self.hits = 0
        self.misses = 0
        self.several = False            # more than one entry: hits must update the LRU order
        self.only = None                # (key, *value) while the cache holds one entry, a tuple (gradient.py)
        self._last_key = None

    def newest(self):
        """The key used last (built or hit), or None when the cache is empty."""
        with self._lock:
            return next(reversed(self._data), None)

    def touch(self, key):
        """Mark key as the most recently used."""
        try:
            self._data.move_to_end(key)
        except KeyError:    # evicted by another thread meanwhile
            pass

    def lookup(self, key):
        """The value for key, or None; counts a hit."""
        value = self._data.get(key)
        if value is not None:
            self.hits += 1          # a statistic: exact under the GIL, never used for correctness
            if self.several:
                self.touch(key)
        return value

    def get(self, key, build, describe=None):
        """The value for key, building it (once) with build() on a miss."""
        value = self.lookup(key)
        if value is not None:
            return value
        data = self._data
        while True:
            with self._lock:
                value = data.get(key)
                if value is not None:
                    self.hits += 1
                    data.move_to_end(key)
                    return value
                event = self._building.get(key)
                if event is None:
                    event = self._building[key] = threading.Event()
                    self.misses += 1
                    previous, self._last_key = self._last_key, key
                    break
            event.wait()
        try:
            self._log_miss(previous, key, describe)
            value = build()
            with self._lock:
                data[key] = value
                if self.maxsize is not None:
                    while len(data) > self.maxsize:
                        data.popitem(last=False)
                self._changed()
            return value
        finally:
            with self._lock:
                del self._building[key]
            event.set()

    def discard(self, key, why):
        """Forget the entry for key, which is out of date (logged like a miss)."""
        with self._lock:
            self._data.pop(key, None)
            self._changed()
            self._last_key = None
        self._log(f"adsrc: {self.name} is out of date: {why}")

    def _changed(self):
        """After the entries changed (under the lock)."""
        data = self._data
        self.several = len(data) > 1
        self.only = None
        if len(data) == 1:
            key, value = next(iter(data.items()))
            self.only = (key, *value) if type(value) is tuple else None

    def _log_miss(self, previous, key, describe):
        if not (log.isEnabledFor(logging.DEBUG) or os.environ.get("ADSRC_LOG_MISSES")):
            return
        why = describe(previous, key) if describe else f"new key {key!r}"
        self._log(f"adsrc: transforming {self.name}: {why}")

    @staticmethod
    def _log(msg):
        if not (log.isEnabledFor(logging.DEBUG) or os.environ.get("ADSRC_LOG_MISSES")):
            return
        log.debug(msg)
        if os.environ.get("ADSRC_LOG_MISSES") and not log.isEnabledFor(logging.DEBUG):
            print(msg, file=sys.stderr)

    def info(self):
        with self._lock:
            return CacheInfo(self.hits, self.misses, self.maxsize, len(self._data))

    def clear(self):
        with self._lock:
            self._data.clear()
            self._changed()
            self.hits = self.misses = 0
            self._last_key = None

package dev.floe.map;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Ready-made serializers and comparators for common key and value types; each codec is both
 * an {@link OakSerializer} and an {@link OakComparator} whose order matches the type's natural
 * order.
 */
public final class OakCodecs {
    private OakCodecs() {}

    /**
     * The unsigned lexicographic order of two segments' bytes, a shorter segment first on a
     * common prefix (the order of {@link Arrays#compareUnsigned} on byte arrays): a building
     * block for {@link OakComparator#compareSerializedKeys} of keys that serialize to bytes in
     * their order. One vectorized {@link MemorySegment#mismatch} finds the first differing byte.
     */
    public static int compareUnsigned(MemorySegment a, MemorySegment b) {
        long i = a.mismatch(b);
        if (i < 0) return 0;
        if (i == a.byteSize()) return -1;
        if (i == b.byteSize()) return 1;
        return Integer.compare(Byte.toUnsignedInt(a.get(ValueLayout.JAVA_BYTE, i)),
                Byte.toUnsignedInt(b.get(ValueLayout.JAVA_BYTE, i)));
    }

    /** {@code Long}s as 8 bytes, in numeric order. */
    public static final LongCodec LONG = new LongCodec();
    /** {@code byte[]}s as themselves, in unsigned lexicographic order ({@link Arrays#compareUnsigned}). */
    public static final ByteArrayCodec BYTES = new ByteArrayCodec();
    /** {@code String}s as UTF-16 code units, in {@link String#compareTo} order. */
    public static final StringCodec STRING = new StringCodec();

    /** The codec and comparator of {@link #LONG}. */
    public static final class LongCodec implements OakSerializer<Long>, OakComparator<Long> {
        private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

        private LongCodec() {}

        @Override
        public void serialize(Long v, MemorySegment target) {
            target.set(L, 0, v);
        }

        @Override
        public Long deserialize(MemorySegment source) {
            return source.get(L, 0);
        }

        @Override
        public int sizeOf(Long v) {
            return 8;
        }

        @Override
        public int compareKeys(Long a, Long b) {
            return Long.compare(a, b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            return Long.compare(a.get(L, 0), b.get(L, 0));
        }

        @Override
        public int compareKeyAndSerializedKey(Long key, MemorySegment serialized) {
            return Long.compare(key, serialized.get(L, 0));
        }

        /** The value with its sign bit flipped: unsigned order of prefixes is signed order of keys. */
        @Override
        public long prefixOf(Long key) {
            return key ^ Long.MIN_VALUE;
        }

        @Override
        public long prefixOfSerialized(MemorySegment serialized) {
            return serialized.get(L, 0) ^ Long.MIN_VALUE;
        }
    }

    /** The codec and comparator of {@link #BYTES}. */
    public static final class ByteArrayCodec implements OakSerializer<byte[]>, OakComparator<byte[]> {
        private ByteArrayCodec() {}

        @Override
        public void serialize(byte[] v, MemorySegment target) {
            MemorySegment.copy(v, 0, target, ValueLayout.JAVA_BYTE, 0, v.length);
        }

        @Override
        public byte[] deserialize(MemorySegment source) {
            return source.toArray(ValueLayout.JAVA_BYTE);
        }

        @Override
        public int sizeOf(byte[] v) {
            return v.length;
        }

        @Override
        public int compareKeys(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            return compareUnsigned(a, b);
        }

        @Override
        public int compareKeyAndSerializedKey(byte[] key, MemorySegment serialized) {
            return compareUnsigned(MemorySegment.ofArray(key), serialized);
        }

        /** The first 8 bytes, big-endian, zero-padded. */
        @Override
        public long prefixOf(byte[] key) {
            long p = 0;
            for (int i = 0; i < 8; i++) p = (p << 8) | (i < key.length ? key[i] & 0xFF : 0);
            return p;
        }

        @Override
        public long prefixOfSerialized(MemorySegment serialized) {
            if (serialized.byteSize() >= 8) return serialized.get(BIG_ENDIAN_LONG, 0);
            long p = 0;
            for (int i = 0; i < 8; i++) {
                p = (p << 8) | (i < serialized.byteSize() ? serialized.get(ValueLayout.JAVA_BYTE, i) & 0xFF : 0);
            }
            return p;
        }

        private static final ValueLayout.OfLong BIG_ENDIAN_LONG =
                ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    }

    /** The codec and comparator of {@link #STRING}. */
    public static final class StringCodec implements OakSerializer<String>, OakComparator<String> {
        private static final ValueLayout.OfChar C = ValueLayout.JAVA_CHAR_UNALIGNED;

        private StringCodec() {}

        @Override
        public void serialize(String v, MemorySegment target) {
            for (int i = 0; i < v.length(); i++) target.set(C, 2L * i, v.charAt(i));
        }

        @Override
        public String deserialize(MemorySegment source) {
            char[] chars = new char[(int) (source.byteSize() / 2)];
            MemorySegment.copy(source, C, 0, chars, 0, chars.length);
            return new String(chars);
        }

        @Override
        public int sizeOf(String v) {
            return 2 * v.length();
        }

        @Override
        public int compareKeys(String a, String b) {
            return a.compareTo(b);
        }

        @Override
        public int compareSerializedKeys(MemorySegment a, MemorySegment b) {
            long n = Math.min(a.byteSize(), b.byteSize()) / 2;
            for (long i = 0; i < n; i++) {
                int c = Character.compare(a.get(C, 2 * i), b.get(C, 2 * i));
                if (c != 0) return c;
            }
            return Long.compare(a.byteSize(), b.byteSize());
        }

        /** The first 4 chars, zero-padded. */
        @Override
        public long prefixOf(String key) {
            long p = 0;
            for (int i = 0; i < 4; i++) p = (p << 16) | (i < key.length() ? key.charAt(i) : 0);
            return p;
        }

        @Override
        public long prefixOfSerialized(MemorySegment serialized) {
            long chars = serialized.byteSize() / 2;
            long p = 0;
            for (int i = 0; i < 4; i++) p = (p << 16) | (i < chars ? serialized.get(C, 2L * i) : 0);
            return p;
        }

        @Override
        public int compareKeyAndSerializedKey(String key, MemorySegment serialized) {
            long n = Math.min(key.length(), serialized.byteSize() / 2);
            for (int i = 0; i < n; i++) {
                int c = Character.compare(key.charAt(i), serialized.get(C, 2L * i));
                if (c != 0) return c;
            }
            return Long.compare(2L * key.length(), serialized.byteSize());
        }
    }
}

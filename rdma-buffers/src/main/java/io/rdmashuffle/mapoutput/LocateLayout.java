package io.rdmashuffle.mapoutput;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Byte layout (big-endian) of {@link LocateRequest} and {@link LocateAnswer}. Strings are UTF-8
 * with a 2-byte length before them.
 *
 * <pre>
 * REQUEST
 *  0       4       6       8               12              16      18
 *  +-------+-------+-------+---------------+---------------+-------+-----------+------------+
 *  | magic |version| flags |start partition| end partition | count | shuffle   | map x count|
 *  +-------+-------+-------+---------------+---------------+-------+-----------+------------+
 *  flags: bit 0 = local paths wanted.
 *
 * ANSWER
 *  0       4       6       8       10
 *  +-------+-------+-------+-------+-----------------------------+-------------------------+
 *  | magic |version| kind  | count | responder (PeerAddress)     | entry x count           |
 *  +-------+-------+-------+-------+-----------------------------+-------------------------+
 *  kind: 1 = tcp, 2 = verbs.
 *
 * ENTRY (in the order of the request's maps)
 *  +-----+--------+---------+-------------------------------------------------------------+
 *  | map | status | message | when status is OK: the OK part below, else nothing          |
 *  +-----+--------+---------+-------------------------------------------------------------+
 *  OK part (a descriptor to READ through the transport, or a local path, never both):
 *  +----------+------------------------------+------------+-------+-------+-------+-------+
 *  | desc len | RegisteredFileDescriptor     | local path | first |   n   |  alg  | flags |
 *  |  (4)     | (desc len bytes, 0 = none)   | (string)   |  (4)  |  (4)  |  (1)  |  (1)  |
 *  +----------+------------------------------+------------+-------+-------+-------+-------+
 *  then n partitions: start (8), length (8), raw length (8, flags bit 0), checksum (4, when
 *  alg is not NONE).
 * </pre>
 */
public final class LocateLayout {
  public static final int REQUEST_MAGIC = 0x52534c51; // "RSLQ"
  public static final int ANSWER_MAGIC = 0x52534c41; // "RSLA"
  public static final short VERSION = 1;

  public static final int REQUEST_MAGIC_OFFSET = 0;
  public static final int REQUEST_VERSION_OFFSET = REQUEST_MAGIC_OFFSET + Integer.BYTES;
  public static final int REQUEST_FLAGS_OFFSET = REQUEST_VERSION_OFFSET + Short.BYTES;
  public static final int REQUEST_START_OFFSET = REQUEST_FLAGS_OFFSET + Short.BYTES;
  public static final int REQUEST_END_OFFSET = REQUEST_START_OFFSET + Integer.BYTES;
  public static final int REQUEST_COUNT_OFFSET = REQUEST_END_OFFSET + Integer.BYTES;
  public static final int REQUEST_FIXED_BYTES = REQUEST_COUNT_OFFSET + Short.BYTES;
  public static final int FLAG_LOCAL_PATHS = 1;

  public static final int ANSWER_MAGIC_OFFSET = 0;
  public static final int ANSWER_VERSION_OFFSET = ANSWER_MAGIC_OFFSET + Integer.BYTES;
  public static final int ANSWER_KIND_OFFSET = ANSWER_VERSION_OFFSET + Short.BYTES;
  public static final int ANSWER_COUNT_OFFSET = ANSWER_KIND_OFFSET + Short.BYTES;
  public static final int ANSWER_FIXED_BYTES = ANSWER_COUNT_OFFSET + Short.BYTES;
  public static final int PARTITIONS_FLAG_RAW_LENGTHS = 1;

  public static final short KIND_TCP = 1;
  public static final short KIND_VERBS = 2;
  public static final int MAX_MESSAGE_BYTES = 1024;
  public static final int MAX_PATH_BYTES = 4096;

  private LocateLayout() {}

  // ------------------------------------------------------------------ request

  public static ByteBuffer encode(LocateRequest r) {
    byte[] shuffle = utf8(r.shuffle());
    List<byte[]> maps = new ArrayList<>(r.maps().size());
    int size = REQUEST_FIXED_BYTES + 2 + shuffle.length;
    for (String m : r.maps()) {
      byte[] b = utf8(m);
      maps.add(b);
      size += 2 + b.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(REQUEST_MAGIC)
        .putShort(VERSION)
        .putShort((short) (r.localPaths() ? FLAG_LOCAL_PATHS : 0));
    b.putInt(r.startPartition()).putInt(r.endPartition()).putShort((short) maps.size());
    putString(b, shuffle);
    for (byte[] m : maps) {
      putString(b, m);
    }
    return b.flip();
  }

  /**
   * Decodes a request; every problem names the field and its value.
   *
   * @throws IllegalArgumentException when the bytes are not a valid request
   */
  public static LocateRequest decodeRequest(ByteBuffer bytes) {
    Fields f = new Fields(bytes, "locate request");
    f.need(REQUEST_FIXED_BYTES, "header");
    expect("request magic", f.b.getInt(), REQUEST_MAGIC);
    expect("request version", f.b.getShort(), VERSION);
    int flags = f.b.getShort();
    int start = f.b.getInt();
    int end = f.b.getInt();
    int count = f.b.getShort() & 0xffff;
    if (count == 0 || count > LocateRequest.MAX_MAPS) {
      throw new IllegalArgumentException(
          "map count=" + count + ": must be in 1 .. " + LocateRequest.MAX_MAPS);
    }
    String shuffle = f.string("shuffle", OutputId.MAX_NAME_BYTES);
    List<String> maps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      maps.add(f.string("map " + i, OutputId.MAX_NAME_BYTES));
    }
    f.end();
    return new LocateRequest(shuffle, maps, start, end, (flags & FLAG_LOCAL_PATHS) != 0);
  }

  // ------------------------------------------------------------------ answer

  public static ByteBuffer encode(LocateAnswer a) {
    List<byte[]> parts = new ArrayList<>();
    int size = ANSWER_FIXED_BYTES + a.responder().encodedLength();
    for (LocateAnswer.Located e : a.maps()) {
      byte[] entry = encodeEntry(e);
      parts.add(entry);
      size += entry.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(ANSWER_MAGIC)
        .putShort(VERSION)
        .putShort(kindCode(a.transport()))
        .putShort((short) a.maps().size());
    a.responder().writeTo(b);
    for (byte[] p : parts) {
      b.put(p);
    }
    return b.flip();
  }

  private static byte[] encodeEntry(LocateAnswer.Located e) {
    byte[] map = utf8(e.map());
    byte[] message = truncate(utf8(e.message()), MAX_MESSAGE_BYTES);
    int size = 2 + map.length + 2 + 2 + message.length;
    byte[] descriptor = null;
    byte[] path = null;
    PartitionTable t = e.partitions();
    if (e.ok()) {
      descriptor = e.data() == null ? new byte[0] : e.data().encode();
      path = utf8(e.localPath());
      if (path.length > MAX_PATH_BYTES) {
        throw new IllegalArgumentException("local path of " + path.length + " bytes: too long");
      }
      int per =
          16 + (t.hasRawLengths() ? 8 : 0) + (t.algorithm() == ChecksumAlgorithm.NONE ? 0 : 4);
      size += 4 + descriptor.length + 2 + path.length + 4 + 4 + 1 + 1 + t.size() * per;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    putString(b, map);
    b.putShort((short) e.status().code());
    putString(b, message);
    if (e.ok()) {
      b.putInt(descriptor.length).put(descriptor);
      putString(b, path);
      b.putInt(t.first())
          .putInt(t.size())
          .put((byte) t.algorithm().id())
          .put((byte) (t.hasRawLengths() ? PARTITIONS_FLAG_RAW_LENGTHS : 0));
      for (int p = t.first(); p < t.end(); p++) {
        b.putLong(t.start(p)).putLong(t.length(p));
        if (t.hasRawLengths()) {
          b.putLong(t.rawLength(p));
        }
        if (t.algorithm() != ChecksumAlgorithm.NONE) {
          b.putInt(t.checksum(p));
        }
      }
    }
    return b.array();
  }

  /**
   * Decodes an answer; every problem names the field and its value.
   *
   * @throws IllegalArgumentException when the bytes are not a valid answer
   */
  public static LocateAnswer decodeAnswer(ByteBuffer bytes) {
    Fields f = new Fields(bytes, "locate answer");
    f.need(ANSWER_FIXED_BYTES, "header");
    expect("answer magic", f.b.getInt(), ANSWER_MAGIC);
    expect("answer version", f.b.getShort(), VERSION);
    TransportKind kind = kindOf(f.b.getShort());
    int count = f.b.getShort() & 0xffff;
    if (count > LocateRequest.MAX_MAPS) {
      throw new IllegalArgumentException(
          "entry count=" + count + ": more than " + LocateRequest.MAX_MAPS);
    }
    PeerAddress responder = PeerAddress.readFrom(f.b);
    List<LocateAnswer.Located> maps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      maps.add(decodeEntry(f, i));
    }
    f.end();
    return new LocateAnswer(kind, responder, maps);
  }

  private static LocateAnswer.Located decodeEntry(Fields f, int i) {
    String map = f.string("entry " + i + " map", OutputId.MAX_NAME_BYTES);
    f.need(2, "entry " + i + " status");
    LocateAnswer.Status status = LocateAnswer.Status.of(f.b.getShort());
    String message = f.string("entry " + i + " message", MAX_MESSAGE_BYTES);
    if (status != LocateAnswer.Status.OK) {
      return LocateAnswer.Located.failed(map, status, message);
    }
    f.need(4, "entry " + i + " descriptor length");
    int dlen = f.b.getInt();
    if (dlen < 0 || dlen > f.b.remaining()) {
      throw new IllegalArgumentException(
          "entry " + i + " descriptor length=" + dlen + ": exceeds the answer");
    }
    RegisteredFileDescriptor data = null;
    if (dlen > 0) {
      byte[] d = new byte[dlen];
      f.b.get(d);
      data = RegisteredFileDescriptor.decode(d);
    }
    String path = f.string("entry " + i + " local path", MAX_PATH_BYTES);
    f.need(10, "entry " + i + " partitions header");
    int first = f.b.getInt();
    int n = f.b.getInt();
    ChecksumAlgorithm alg = ChecksumAlgorithm.fromId(f.b.get());
    boolean raw = (f.b.get() & PARTITIONS_FLAG_RAW_LENGTHS) != 0;
    int per = 16 + (raw ? 8 : 0) + (alg == ChecksumAlgorithm.NONE ? 0 : 4);
    if (n < 0 || first < 0 || (long) n * per > f.b.remaining()) {
      throw new IllegalArgumentException(
          "entry " + i + " partitions=" + n + " from " + first + ": exceed the answer");
    }
    long[] starts = new long[n];
    long[] lengths = new long[n];
    long[] raws = raw ? new long[n] : null;
    int[] sums = alg == ChecksumAlgorithm.NONE ? null : new int[n];
    for (int p = 0; p < n; p++) {
      starts[p] = f.b.getLong();
      lengths[p] = f.b.getLong();
      if (raw) {
        raws[p] = f.b.getLong();
      }
      if (sums != null) {
        sums[p] = f.b.getInt();
      }
    }
    return new LocateAnswer.Located(
        map,
        LocateAnswer.Status.OK,
        message,
        data,
        path,
        new PartitionTable(first, starts, lengths, raws, alg, sums));
  }

  // ------------------------------------------------------------------ shared

  public static short kindCode(TransportKind kind) {
    return switch (kind) {
      case TCP -> KIND_TCP;
      case VERBS -> KIND_VERBS;
      case AUTO -> throw new IllegalArgumentException("kind=auto: not a running transport");
    };
  }

  public static TransportKind kindOf(int code) {
    return switch (code) {
      case KIND_TCP -> TransportKind.TCP;
      case KIND_VERBS -> TransportKind.VERBS;
      default -> throw new IllegalArgumentException("transport kind=" + code + ": unknown");
    };
  }

  private static void expect(String field, int value, int expected) {
    if (value != expected) {
      throw new IllegalArgumentException(
          field
              + "=0x"
              + Integer.toHexString(value)
              + ": expected 0x"
              + Integer.toHexString(expected));
    }
  }

  private static void putString(ByteBuffer b, byte[] s) {
    b.putShort((short) s.length).put(s);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] truncate(byte[] s, int max) {
    return s.length <= max ? s : java.util.Arrays.copyOf(s, max);
  }

  /** Reads fields off a buffer, turning every short read into an error naming the field. */
  private static final class Fields {
    final ByteBuffer b;
    final String what;

    Fields(ByteBuffer bytes, String what) {
      this.b = bytes.slice();
      this.what = what;
    }

    void need(int n, String field) {
      if (b.remaining() < n) {
        throw new IllegalArgumentException(
            what
                + " "
                + field
                + ": truncated at offset="
                + b.position()
                + " (remaining="
                + b.remaining()
                + ", needed="
                + n
                + ")");
      }
    }

    String string(String field, int max) {
      need(2, field + " length");
      int n = b.getShort() & 0xffff;
      if (n > max) {
        throw new IllegalArgumentException(field + " length=" + n + ": more than " + max);
      }
      need(n, field);
      byte[] s = new byte[n];
      b.get(s);
      return new String(s, StandardCharsets.UTF_8);
    }

    void end() {
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(
            what + " length=" + b.limit() + ": " + b.remaining() + " bytes after its end");
      }
    }
  }
}

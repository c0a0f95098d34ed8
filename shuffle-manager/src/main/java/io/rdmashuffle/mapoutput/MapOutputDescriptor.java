package io.rdmashuffle.mapoutput;

import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Everything a reducer needs to READ one map output, published with the map's status so no
 * extra round trip is needed (Spark carries it in {@code BlockManagerId.topologyInfo}, as
 * sealed text: {@link #toText}). Byte layout (big-endian):
 *
 * <pre>
 *  0       1       2       3       4               8               12
 *  +-------+-------+-------+-------+---------------+---------------+
 *  |version| flags |chk alg|  0    |  shuffle id   | partitions n  |
 *  +-------+-------+-------+-------+---------------+---------------+
 *  |            map id             |             nonce             |   (12 .. 28)
 *  +-------------------------------+-------------------------------+
 *  the rest is absent when flags has EMPTY (every partition is empty, nothing registered):
 *  +---------------------------------------------------------------+
 *  | transport address of the owner (PeerAddress layout, 4 + h)    |
 *  | meta file: int length m, RegisteredFileDescriptor (m bytes)   |
 *  | data file: int length d, RegisteredFileDescriptor (d bytes)   |
 *  | data file path for same-host readers: short length, UTF-8     |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The meta file is laid out as {@link MapOutputMetaLayout} says; its entries carry tags derived
 * from {@code nonce}, so a descriptor of a map output that was replaced or withdrawn can never
 * be used to read another one's bytes. The rkeys and addresses inside are capabilities:
 * {@link #toString()} leaves them out.
 */
public record MapOutputDescriptor(
    int shuffleId,
    long mapId,
    long nonce,
    int partitions,
    ChecksumAlgorithm checksum,
    PeerAddress owner,
    RegisteredFileDescriptor meta,
    RegisteredFileDescriptor data,
    String dataPath) {

  public static final int VERSION = 1;
  public static final int FLAG_EMPTY = 1;
  public static final int VERSION_OFFSET = 0;
  public static final int FLAGS_OFFSET = 1;
  public static final int CHECKSUM_OFFSET = 2;
  public static final int SHUFFLE_ID_OFFSET = 4;
  public static final int PARTITIONS_OFFSET = 8;
  public static final int MAP_ID_OFFSET = 12;
  public static final int NONCE_OFFSET = 20;
  public static final int FIXED_BYTES = 28;
  /** How the text form starts; text without it is not a descriptor of ours. */
  public static final String TEXT_PREFIX = "rdma-shuffle/1:";

  public MapOutputDescriptor {
    if (partitions < 0) {
      throw new IllegalArgumentException("partitions=" + partitions + ": must not be negative");
    }
    if (dataPath == null) {
      dataPath = "";
    }
    boolean empty = owner == null;
    if (!empty && (meta == null || data == null)) {
      throw new IllegalArgumentException("a non-empty map output needs its meta and data files");
    }
    if (!empty && meta.fileLength() != MapOutputMetaLayout.fileLength(partitions)) {
      throw new IllegalArgumentException(
          "meta fileLength=" + meta.fileLength() + ": " + partitions + " partitions need "
              + MapOutputMetaLayout.fileLength(partitions));
    }
  }

  /** A map output whose partitions are all empty: nothing to READ, nothing registered. */
  public static MapOutputDescriptor empty(int shuffleId, long mapId, long nonce, int partitions) {
    return new MapOutputDescriptor(
        shuffleId, mapId, nonce, partitions, ChecksumAlgorithm.NONE, null, null, null, "");
  }

  public boolean isEmpty() {
    return owner == null;
  }

  public byte[] encode() {
    byte[] path = dataPath.getBytes(StandardCharsets.UTF_8);
    if (path.length > 0xffff) {
      throw new IllegalArgumentException("dataPath: longer than 65535 bytes");
    }
    byte[] m = isEmpty() ? null : meta.encode();
    byte[] d = isEmpty() ? null : data.encode();
    int length =
        FIXED_BYTES
            + (isEmpty() ? 0 : owner.encodedLength() + 4 + m.length + 4 + d.length + 2 + path.length);
    ByteBuffer b = ByteBuffer.allocate(length);
    b.put(VERSION_OFFSET, (byte) VERSION);
    b.put(FLAGS_OFFSET, (byte) (isEmpty() ? FLAG_EMPTY : 0));
    b.put(CHECKSUM_OFFSET, (byte) checksum.id());
    b.putInt(SHUFFLE_ID_OFFSET, shuffleId);
    b.putInt(PARTITIONS_OFFSET, partitions);
    b.putLong(MAP_ID_OFFSET, mapId);
    b.putLong(NONCE_OFFSET, nonce);
    if (!isEmpty()) {
      b.position(FIXED_BYTES);
      owner.writeTo(b);
      b.putInt(m.length).put(m);
      b.putInt(d.length).put(d);
      b.putShort((short) path.length).put(path);
    }
    return b.array();
  }

  /** Decodes and validates; every problem names the field and its value. */
  public static MapOutputDescriptor decode(byte[] bytes) {
    if (bytes.length < FIXED_BYTES) {
      throw new IllegalArgumentException(
          "map output descriptor length=" + bytes.length + ": shorter than " + FIXED_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int version = b.get(VERSION_OFFSET);
    if (version != VERSION) {
      throw new IllegalArgumentException("map output descriptor version=" + version
          + ": expected " + VERSION);
    }
    int flags = b.get(FLAGS_OFFSET);
    ChecksumAlgorithm checksum = ChecksumAlgorithm.fromId(b.get(CHECKSUM_OFFSET));
    int shuffleId = b.getInt(SHUFFLE_ID_OFFSET);
    int partitions = b.getInt(PARTITIONS_OFFSET);
    long mapId = b.getLong(MAP_ID_OFFSET);
    long nonce = b.getLong(NONCE_OFFSET);
    if ((flags & FLAG_EMPTY) != 0) {
      if (bytes.length != FIXED_BYTES) {
        throw new IllegalArgumentException(
            "empty map output descriptor length=" + bytes.length + ": expected " + FIXED_BYTES);
      }
      return empty(shuffleId, mapId, nonce, partitions);
    }
    try {
      b.position(FIXED_BYTES);
      PeerAddress owner = PeerAddress.readFrom(b);
      RegisteredFileDescriptor meta = RegisteredFileDescriptor.decode(lengthPrefixed(b, "meta"));
      RegisteredFileDescriptor data = RegisteredFileDescriptor.decode(lengthPrefixed(b, "data"));
      int n = b.getShort() & 0xffff;
      byte[] path = new byte[n];
      b.get(path);
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(
            "map output descriptor: " + b.remaining() + " bytes after its end");
      }
      return new MapOutputDescriptor(shuffleId, mapId, nonce, partitions, checksum, owner, meta,
          data, new String(path, StandardCharsets.UTF_8));
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException(
          "map output descriptor length=" + bytes.length + ": truncated", e);
    }
  }

  private static byte[] lengthPrefixed(ByteBuffer b, String what) {
    int n = b.getInt();
    if (n < 0 || n > b.remaining()) {
      throw new IllegalArgumentException(what + " file descriptor length=" + n + ": invalid");
    }
    byte[] out = new byte[n];
    b.get(out);
    return out;
  }

  /**
   * The text form carried by an engine's string field (Spark's topologyInfo): sealed with the
   * application's secret, so logs that print the field show no capability.
   */
  public String toText(DescriptorSeal seal) {
    return TEXT_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(seal.seal(encode()));
  }

  /** Whether {@code text} claims to be a descriptor of ours. */
  public static boolean isText(String text) {
    return text != null && text.startsWith(TEXT_PREFIX);
  }

  /**
   * Opens and parses the text form.
   *
   * @throws IllegalArgumentException when it is not ours, not sealed with this application's
   *     secret, or malformed
   */
  public static MapOutputDescriptor fromText(String text, DescriptorSeal seal) {
    if (!isText(text)) {
      throw new IllegalArgumentException("not an rdma-shuffle map output descriptor");
    }
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(text.substring(TEXT_PREFIX.length()));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("map output descriptor: not base64url", e);
    }
    return decode(seal.open(bytes));
  }

  @Override
  public String toString() {
    return "MapOutput[shuffle=" + shuffleId + ", map=" + mapId + ", partitions=" + partitions
        + (isEmpty() ? ", empty" : ", owner=" + owner + ", data=" + data.fileLength() + " bytes")
        + "]";
  }
}

package io.rdmashuffle.hadoop;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Byte layout (big-endian) of a {@link MapOutputsAnswer}, the body of the service's answer to a
 * reduce task's map outputs request:
 *
 * <pre>
 * HEADER
 *  0       4       6       8               12              16
 *  +-------+-------+-------+---------------+---------------+-------------------------------+
 *  | magic |version| kind  |    reduce     |  entry count  | responder address             |
 *  +-------+-------+-------+---------------+---------------+-------------------------------+
 *  kind: 1 = tcp, 2 = verbs. Responder address: PeerAddress (host length 2, host, port 2).
 *
 * ENTRY, entry count times, in the order the maps were asked for
 *  0        2               2+n      4+n             12+n            20+n            28+n       32+n
 *  +--------+---------------+--------+---------------+---------------+---------------+----------+
 *  | id len | map attempt id| status | start offset  |  raw length   |  part length  | desc len |
 *  +--------+---------------+--------+---------------+---------------+---------------+----------+
 *  | RegisteredFileDescriptor (desc len bytes, 0 unless OK) | msg len (2) | message (UTF-8)     |
 *  +--------------------------------------------------------+-------------+---------------------+
 * </pre>
 *
 * The offsets are file.out.index's IndexRecord of the partition: the segment is an IFile
 * segment with its checksum, partLength bytes on disk, rawLength once decompressed.
 */
public final class MapOutputsAnswerLayout {
  public static final int MAGIC = 0x52534d41; // "RSMA"
  public static final short VERSION = 1;
  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = 4;
  public static final int KIND_OFFSET = 6;
  public static final int REDUCE_OFFSET = 8;
  public static final int COUNT_OFFSET = 12;
  public static final int RESPONDER_OFFSET = 16;

  /** Entry fields after the map id, relative to the end of the id. */
  public static final int ENTRY_STATUS_OFFSET = 0;
  public static final int ENTRY_START_OFFSET = 2;
  public static final int ENTRY_RAW_LENGTH_OFFSET = 10;
  public static final int ENTRY_PART_LENGTH_OFFSET = 18;
  public static final int ENTRY_DESCRIPTOR_LENGTH_OFFSET = 26;
  public static final int ENTRY_FIXED_BYTES = 30;

  public static final short KIND_TCP = 1;
  public static final short KIND_VERBS = 2;
  /** A reduce task asks for at most this many maps at once (Hadoop asks for 20). */
  public static final int MAX_ENTRIES = 10_000;
  public static final int MAX_ID_BYTES = 256;
  public static final int MAX_MESSAGE_BYTES = 1024;

  private MapOutputsAnswerLayout() {}

  public static byte[] encode(MapOutputsAnswer a) {
    List<byte[]> ids = new ArrayList<>();
    List<byte[]> descriptors = new ArrayList<>();
    List<byte[]> messages = new ArrayList<>();
    int size = RESPONDER_OFFSET + a.responder().encodedLength();
    for (MapOutputsAnswer.Entry e : a.entries()) {
      byte[] id = e.mapId().getBytes(StandardCharsets.UTF_8);
      byte[] d = e.file() == null ? new byte[0] : e.file().encode();
      byte[] m = truncate(e.message().getBytes(StandardCharsets.UTF_8), MAX_MESSAGE_BYTES);
      if (id.length > MAX_ID_BYTES) {
        throw new IllegalArgumentException("map id length=" + id.length + ": too long");
      }
      ids.add(id);
      descriptors.add(d);
      messages.add(m);
      size += 2 + id.length + ENTRY_FIXED_BYTES + d.length + 2 + m.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(MAGIC).putShort(VERSION).putShort(kindCode(a.transport()));
    b.putInt(a.reduce()).putInt(a.entries().size());
    a.responder().writeTo(b);
    for (int i = 0; i < a.entries().size(); i++) {
      MapOutputsAnswer.Entry e = a.entries().get(i);
      b.putShort((short) ids.get(i).length).put(ids.get(i));
      b.putShort((short) e.status().code());
      b.putLong(e.startOffset()).putLong(e.rawLength()).putLong(e.partLength());
      b.putInt(descriptors.get(i).length).put(descriptors.get(i));
      b.putShort((short) messages.get(i).length).put(messages.get(i));
    }
    return b.array();
  }

  /**
   * Decodes and validates an answer; every problem names the field and its value.
   *
   * @throws IllegalArgumentException when the bytes are not a valid answer
   */
  public static MapOutputsAnswer decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      if (bytes.length < RESPONDER_OFFSET) {
        throw new IllegalArgumentException("answer length=" + bytes.length + ": shorter than its header");
      }
      int magic = b.getInt(MAGIC_OFFSET);
      if (magic != MAGIC) {
        throw new IllegalArgumentException(
            "magic=0x" + Integer.toHexString(magic) + ": not an rdma-shuffle answer");
      }
      short version = b.getShort(VERSION_OFFSET);
      if (version != VERSION) {
        throw new IllegalArgumentException("version=" + version + ": expected " + VERSION);
      }
      TransportKind kind = kindOf(b.getShort(KIND_OFFSET));
      int reduce = b.getInt(REDUCE_OFFSET);
      if (reduce < 0) {
        throw new IllegalArgumentException("reduce=" + reduce + ": must not be negative");
      }
      int count = b.getInt(COUNT_OFFSET);
      if (count < 0 || count > MAX_ENTRIES) {
        throw new IllegalArgumentException("entry count=" + count + ": must be in 0 .. " + MAX_ENTRIES);
      }
      b.position(RESPONDER_OFFSET);
      PeerAddress responder = PeerAddress.readFrom(b);
      List<MapOutputsAnswer.Entry> entries = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        entries.add(readEntry(b));
      }
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(
            "answer length=" + bytes.length + ": " + b.remaining() + " bytes after the last entry");
      }
      return new MapOutputsAnswer(kind, reduce, responder, entries);
    } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
      throw new IllegalArgumentException("answer length=" + bytes.length + ": truncated", e);
    }
  }

  private static MapOutputsAnswer.Entry readEntry(ByteBuffer b) {
    int idLength = b.getShort() & 0xffff;
    if (idLength == 0 || idLength > MAX_ID_BYTES) {
      throw new IllegalArgumentException("map id length=" + idLength + ": must be in 1 .. " + MAX_ID_BYTES);
    }
    String id = utf8(b, idLength);
    MapOutputsAnswer.Status status = MapOutputsAnswer.Status.of(b.getShort());
    long start = b.getLong();
    long raw = b.getLong();
    long part = b.getLong();
    int descriptorLength = b.getInt();
    if (descriptorLength < 0 || descriptorLength > b.remaining()) {
      throw new IllegalArgumentException(
          "map " + id + " descriptor length=" + descriptorLength + ": exceeds the answer");
    }
    if ((status == MapOutputsAnswer.Status.OK) != (descriptorLength > 0)) {
      throw new IllegalArgumentException(
          "map " + id + " status=" + status + " with descriptor length=" + descriptorLength);
    }
    RegisteredFileDescriptor file = null;
    if (descriptorLength > 0) {
      byte[] d = new byte[descriptorLength];
      b.get(d);
      file = RegisteredFileDescriptor.decode(d);
    }
    int messageLength = b.getShort() & 0xffff;
    if (messageLength > MAX_MESSAGE_BYTES) {
      throw new IllegalArgumentException("map " + id + " message length=" + messageLength + ": too long");
    }
    String message = utf8(b, messageLength);
    return new MapOutputsAnswer.Entry(id, status, start, raw, part, file, message);
  }

  /**
   * Checks a segment against the file it lies in.
   *
   * @throws IllegalArgumentException naming the bad field and its value
   */
  public static void validateSegment(
      String mapId, long start, long raw, long part, long fileLength) {
    if (start < 0 || start > fileLength) {
      throw new IllegalArgumentException(
          "map " + mapId + " start offset=" + start + ": outside file.out of " + fileLength + " bytes");
    }
    if (part < 0 || part > fileLength - start) {
      throw new IllegalArgumentException(
          "map " + mapId + " part length=" + part + ": beyond file.out of " + fileLength
              + " bytes from start offset=" + start);
    }
    if (raw < 0) {
      throw new IllegalArgumentException("map " + mapId + " raw length=" + raw + ": negative");
    }
  }

  public static short kindCode(TransportKind kind) {
    return switch (kind) {
      case TCP -> KIND_TCP;
      case VERBS -> KIND_VERBS;
      case AUTO -> throw new IllegalArgumentException("kind=auto: not a running transport");
    };
  }

  public static TransportKind kindOf(short code) {
    return switch (code) {
      case KIND_TCP -> TransportKind.TCP;
      case KIND_VERBS -> TransportKind.VERBS;
      default -> throw new IllegalArgumentException("kind=" + code + ": unknown transport");
    };
  }

  private static String utf8(ByteBuffer b, int n) {
    byte[] s = new byte[n];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }

  private static byte[] truncate(byte[] s, int max) {
    return s.length <= max ? s : java.util.Arrays.copyOf(s, max);
  }
}

/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegionDescriptor;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Byte layout (big-endian) of {@link LocateRequest} and {@link LocateAnswer}. Strings are UTF-8
 * with a 2-byte length before them.
 *
 * <pre>
 * REQUEST
 *  0       4       6       8               12              16      18              26
 *  +-------+-------+-------+---------------+---------------+-------+---------------+---------+
 *  | magic |version| flags |start partition| end partition | count | reader        | shuffle |
 *  +-------+-------+-------+---------------+---------------+-------+---------------+---------+
 *  then map x count. flags: bit 0 = local paths wanted. reader: the lease holder (0: none).
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
 *
 * <p>Sizes: an answer is bounded by the serving side's {@code call.maxAnswerBytes}, so it is
 * measured before it is built, here and nowhere else: {@link #entryBytes} is an entry's exact size,
 * {@link #leastOkEntryBytes} what an OK entry of so many partitions needs at least (the server's
 * check before it locates), {@link #plannedEntryBytes} what a reader plans for (its batches). A
 * server answers a prefix of the maps asked for that fits and {@link LocateAnswer.Status#DEFERRED}
 * for the rest (status 6, added like {@code BUSY} without a new version: a server only sends it
 * where it would otherwise have refused the whole answer as too large). All sizes are {@code long}:
 * one request may ask {@value LocateRequest#MAX_MAPS} maps of {@value
 * MetaFileLayout#MAX_PARTITIONS} partitions.
 */
public final class LocateLayout {
  public static final int REQUEST_MAGIC = 0x52534c51; // "RSLQ"
  public static final int ANSWER_MAGIC = 0x52534c41; // "RSLA"

  /** 2: the request names its reader (leases). A version 1 request is refused by name. */
  public static final short VERSION = 2;

  public static final int REQUEST_MAGIC_OFFSET = 0;
  public static final int REQUEST_VERSION_OFFSET = REQUEST_MAGIC_OFFSET + Integer.BYTES;
  public static final int REQUEST_FLAGS_OFFSET = REQUEST_VERSION_OFFSET + Short.BYTES;
  public static final int REQUEST_START_OFFSET = REQUEST_FLAGS_OFFSET + Short.BYTES;
  public static final int REQUEST_END_OFFSET = REQUEST_START_OFFSET + Integer.BYTES;
  public static final int REQUEST_COUNT_OFFSET = REQUEST_END_OFFSET + Integer.BYTES;
  public static final int REQUEST_READER_OFFSET = REQUEST_COUNT_OFFSET + Short.BYTES;
  public static final int REQUEST_FIXED_BYTES = REQUEST_READER_OFFSET + Long.BYTES;
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

  /** An entry's bytes before its status's part: map (string), status, message (string). */
  private static final int ENTRY_FIXED_BYTES = 2 + 2 + 2;

  /** An OK part's bytes besides descriptor, path and partitions. */
  private static final int OK_FIXED_BYTES = 4 + 2 + 4 + 4 + 1 + 1;

  /** A partition's bytes without raw length and checksum, and with both. */
  public static final int MIN_PARTITION_BYTES = 16;

  public static final int MAX_PARTITION_BYTES = MIN_PARTITION_BYTES + 8 + 4;

  /**
   * The descriptor a reader plans for: a file of up to 4 pieces (4 GiB at the default piece size).
   * Larger descriptors make an answer longer than planned; the server then answers a prefix.
   */
  public static final int PLANNED_DESCRIPTOR_BYTES =
      RegisteredFileDescriptor.HEADER_BYTES + 4 * RegionDescriptor.BYTES;

  /** An answer's header with the longest responder address. */
  public static final int MAX_ANSWER_HEADER_BYTES =
      ANSWER_FIXED_BYTES
          + PeerAddress.HOST_OFFSET
          + PeerAddress.MAX_HOST_BYTES
          + PeerAddress.PORT_BYTES;

  private LocateLayout() {}

  // ------------------------------------------------------------------ request

  /** The bytes of a request of shuffle {@code shuffle} before its maps. */
  public static int requestHeadBytes(String shuffle) {
    return REQUEST_FIXED_BYTES + 2 + WireFields.utf8(shuffle).length;
  }

  /** The bytes map {@code map} adds to a request. */
  public static int requestMapBytes(String map) {
    return 2 + WireFields.utf8(map).length;
  }

  public static ByteBuffer encode(LocateRequest r) {
    byte[] shuffle = WireFields.utf8(r.shuffle());
    List<byte[]> maps = new ArrayList<>(r.maps().size());
    // at most 1024 names of 255 bytes: an int can't overflow
    int size = requestHeadBytes(r.shuffle());
    for (String m : r.maps()) {
      byte[] b = WireFields.utf8(m);
      maps.add(b);
      size += 2 + b.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(REQUEST_MAGIC)
        .putShort(VERSION)
        .putShort((short) (r.localPaths() ? FLAG_LOCAL_PATHS : 0));
    b.putInt(r.startPartition()).putInt(r.endPartition()).putShort((short) maps.size());
    b.putLong(r.reader());
    WireFields.putString(b, shuffle);
    for (byte[] m : maps) {
      WireFields.putString(b, m);
    }
    return b.flip();
  }

  /**
   * Decodes a request; every problem names the field and its value.
   *
   * @throws IllegalArgumentException when the bytes are not a valid request
   */
  public static LocateRequest decodeRequest(ByteBuffer bytes) {
    return LocateDecoder.request(bytes);
  }

  // ------------------------------------------------------------------ answer

  /**
   * Encodes an answer.
   *
   * @throws IllegalArgumentException when it would not fit one buffer (the message says its size)
   */
  public static ByteBuffer encode(LocateAnswer a) {
    long size = answerHeaderBytes(a.responder());
    for (LocateAnswer.Located e : a.maps()) {
      size += entryBytes(e);
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "locate answer of " + size + " bytes (" + a.maps().size() + " maps): too large");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size);
    b.putInt(ANSWER_MAGIC)
        .putShort(VERSION)
        .putShort(kindCode(a.transport()))
        .putShort((short) a.maps().size());
    a.responder().writeTo(b);
    for (LocateAnswer.Located e : a.maps()) {
      encodeEntry(b, e);
    }
    return b.flip();
  }

  private static void encodeEntry(ByteBuffer b, LocateAnswer.Located e) {
    WireFields.putString(b, WireFields.utf8(e.map()));
    b.putShort((short) e.status().code());
    WireFields.putString(b, message(e));
    if (!e.ok()) {
      return;
    }
    PartitionTable t = e.partitions();
    byte[] descriptor = e.data() == null ? new byte[0] : e.data().encode();
    b.putInt(descriptor.length).put(descriptor);
    WireFields.putString(b, path(e));
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

  // ------------------------------------------------------------------ sizes

  /** The bytes of an answer's header naming {@code responder}. */
  public static int answerHeaderBytes(PeerAddress responder) {
    return ANSWER_FIXED_BYTES + responder.encodedLength();
  }

  /**
   * The exact bytes {@code e} takes in an answer.
   *
   * @throws IllegalArgumentException when its local path is longer than {@value #MAX_PATH_BYTES}
   */
  public static long entryBytes(LocateAnswer.Located e) {
    int map = WireFields.utf8(e.map()).length;
    int message = message(e).length;
    if (!e.ok()) {
      return ENTRY_FIXED_BYTES + map + message;
    }
    PartitionTable t = e.partitions();
    int descriptor = e.data() == null ? 0 : e.data().encodedLength();
    return okEntryBytes(
        map,
        message,
        descriptor,
        path(e).length,
        t.size(),
        partitionBytes(t.hasRawLengths(), t.algorithm()));
  }

  /** The bytes of an entry that is not OK (no file), with {@code messageBytes} of message. */
  public static long failedEntryBytes(String map, int messageBytes) {
    return ENTRY_FIXED_BYTES
        + WireFields.utf8(map).length
        + Math.min(messageBytes, MAX_MESSAGE_BYTES);
  }

  /** The bytes of one partition in an OK entry. */
  public static int partitionBytes(boolean rawLengths, ChecksumAlgorithm algorithm) {
    return MIN_PARTITION_BYTES
        + (rawLengths ? 8 : 0)
        + (algorithm == ChecksumAlgorithm.NONE ? 0 : 4);
  }

  /**
   * The least an OK entry of {@code partitions} partitions of {@code map} takes (no descriptor, no
   * path, neither raw lengths nor checksums): a server that has less room left need not locate it.
   */
  public static long leastOkEntryBytes(String map, long partitions) {
    return okEntryBytes(WireFields.utf8(map).length, 0, 0, 0, partitions, MIN_PARTITION_BYTES);
  }

  /**
   * What a reader plans for an answer locating {@code maps} over {@code partitions} partitions: the
   * longest header and each map's {@link #plannedEntryBytes}.
   */
  public static long plannedAnswerBytes(
      Iterable<String> maps, long partitions, boolean localPaths) {
    long bytes = MAX_ANSWER_HEADER_BYTES;
    for (String m : maps) {
      bytes += plannedEntryBytes(m, partitions, localPaths);
    }
    return bytes;
  }

  /**
   * What a reader plans for an OK entry of {@code partitions} partitions of {@code map}: raw
   * lengths and checksums, and a descriptor of {@value #PLANNED_DESCRIPTOR_BYTES} bytes or, with
   * {@code localPaths}, the longest path. It grows by {@link #MAX_PARTITION_BYTES} a partition.
   */
  public static long plannedEntryBytes(String map, long partitions, boolean localPaths) {
    return okEntryBytes(
        WireFields.utf8(map).length,
        0,
        localPaths ? 0 : PLANNED_DESCRIPTOR_BYTES,
        localPaths ? MAX_PATH_BYTES : 0,
        partitions,
        MAX_PARTITION_BYTES);
  }

  private static long okEntryBytes(
      int map, int message, int descriptor, int path, long partitions, int perPartition) {
    if (partitions < 0 || partitions > MetaFileLayout.MAX_PARTITIONS) {
      throw new IllegalArgumentException(
          "partitions=" + partitions + ": must be in 0 .. " + MetaFileLayout.MAX_PARTITIONS);
    }
    return (long) ENTRY_FIXED_BYTES
        + map
        + message
        + OK_FIXED_BYTES
        + descriptor
        + path
        + partitions * perPartition;
  }

  private static byte[] message(LocateAnswer.Located e) {
    return truncate(WireFields.utf8(e.message()), MAX_MESSAGE_BYTES);
  }

  private static byte[] path(LocateAnswer.Located e) {
    byte[] path = WireFields.utf8(e.localPath());
    if (path.length > MAX_PATH_BYTES) {
      throw new IllegalArgumentException(
          "local path of " + path.length + " bytes: more than " + MAX_PATH_BYTES);
    }
    return path;
  }

  /**
   * Decodes an answer; every problem names the field and its value.
   *
   * @throws IllegalArgumentException when the bytes are not a valid answer
   */
  public static LocateAnswer decodeAnswer(ByteBuffer bytes) {
    return LocateDecoder.answer(bytes);
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

  private static byte[] truncate(byte[] s, int max) {
    return s.length <= max ? s : java.util.Arrays.copyOf(s, max);
  }
}

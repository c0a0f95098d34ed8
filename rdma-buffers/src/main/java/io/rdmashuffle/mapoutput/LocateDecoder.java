/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import static io.rdmashuffle.mapoutput.LocateLayout.ANSWER_FIXED_BYTES;
import static io.rdmashuffle.mapoutput.LocateLayout.ANSWER_MAGIC;
import static io.rdmashuffle.mapoutput.LocateLayout.FLAG_LOCAL_PATHS;
import static io.rdmashuffle.mapoutput.LocateLayout.MAX_MESSAGE_BYTES;
import static io.rdmashuffle.mapoutput.LocateLayout.MAX_PATH_BYTES;
import static io.rdmashuffle.mapoutput.LocateLayout.PARTITIONS_FLAG_RAW_LENGTHS;
import static io.rdmashuffle.mapoutput.LocateLayout.REQUEST_FIXED_BYTES;
import static io.rdmashuffle.mapoutput.LocateLayout.REQUEST_MAGIC;
import static io.rdmashuffle.mapoutput.LocateLayout.VERSION;

import io.rdmashuffle.config.TransportKind;
import io.rdmashuffle.memory.RegisteredFileDescriptor;
import io.rdmashuffle.transport.PeerAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The decoding half of {@link LocateLayout}: reads a {@link LocateRequest} or a {@link
 * LocateAnswer} field by field in the layout's order and checks each as it goes (magic, version,
 * counts, string and descriptor lengths, partitions against the bytes left), so every problem is an
 * {@link IllegalArgumentException} naming the field and its value. The layout itself (offsets,
 * sizes, flags, codes) stays in {@link LocateLayout}; this class only follows it.
 */
final class LocateDecoder {
  private LocateDecoder() {}

  /** See {@link LocateLayout#decodeRequest}. */
  static LocateRequest request(ByteBuffer bytes) {
    WireFields f = new WireFields(bytes, "locate request");
    f.need(REQUEST_FIXED_BYTES, "header");
    WireFields.expect("request magic", f.b.getInt(), REQUEST_MAGIC);
    WireFields.expect("request version", f.b.getShort(), VERSION);
    int flags = f.b.getShort();
    int start = f.b.getInt();
    int end = f.b.getInt();
    int count = f.b.getShort() & 0xffff;
    if (count == 0 || count > LocateRequest.MAX_MAPS) {
      throw new IllegalArgumentException(
          "map count=" + count + ": must be in 1 .. " + LocateRequest.MAX_MAPS);
    }
    long reader = f.b.getLong();
    String shuffle = f.string("shuffle", OutputId.MAX_NAME_BYTES);
    List<String> maps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      maps.add(f.string("map " + i, OutputId.MAX_NAME_BYTES));
    }
    f.end();
    return new LocateRequest(shuffle, maps, start, end, (flags & FLAG_LOCAL_PATHS) != 0, reader);
  }

  /** See {@link LocateLayout#decodeAnswer}. */
  static LocateAnswer answer(ByteBuffer bytes) {
    WireFields f = new WireFields(bytes, "locate answer");
    f.need(ANSWER_FIXED_BYTES, "header");
    WireFields.expect("answer magic", f.b.getInt(), ANSWER_MAGIC);
    WireFields.expect("answer version", f.b.getShort(), VERSION);
    TransportKind kind = LocateLayout.kindOf(f.b.getShort());
    int count = f.b.getShort() & 0xffff;
    if (count > LocateRequest.MAX_MAPS) {
      throw new IllegalArgumentException(
          "entry count=" + count + ": more than " + LocateRequest.MAX_MAPS);
    }
    PeerAddress responder = PeerAddress.readFrom(f.b);
    List<LocateAnswer.Located> maps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      maps.add(entry(f, i));
    }
    f.end();
    return new LocateAnswer(kind, responder, maps);
  }

  private static LocateAnswer.Located entry(WireFields f, int i) {
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
    int per = LocateLayout.partitionBytes(raw, alg);
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
}

/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.mapoutput;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Byte layout (big-endian) of {@link ReleaseRequest}, the call that ends a reader's leases (its
 * answer is empty). Strings as in {@link LocateLayout}.
 *
 * <pre>
 *  0       4       6               14      16
 *  +-------+-------+---------------+-------+-----------+------------+
 *  | magic |version| reader        | count | shuffle   | map x count|
 *  +-------+-------+---------------+-------+-----------+------------+
 * </pre>
 */
public final class ReleaseLayout {
  public static final int MAGIC = 0x52534c52; // "RSLR"
  public static final short VERSION = 1;

  public static final int MAGIC_OFFSET = 0;
  public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
  public static final int READER_OFFSET = VERSION_OFFSET + Short.BYTES;
  public static final int COUNT_OFFSET = READER_OFFSET + Long.BYTES;
  public static final int FIXED_BYTES = COUNT_OFFSET + Short.BYTES;

  private ReleaseLayout() {}

  public static ByteBuffer encode(ReleaseRequest r) {
    byte[] shuffle = WireFields.utf8(r.shuffle());
    List<byte[]> maps = new ArrayList<>(r.maps().size());
    int size = FIXED_BYTES + 2 + shuffle.length;
    for (String m : r.maps()) {
      byte[] b = WireFields.utf8(m);
      maps.add(b);
      size += 2 + b.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(MAGIC).putShort(VERSION).putLong(r.reader()).putShort((short) maps.size());
    WireFields.putString(b, shuffle);
    for (byte[] m : maps) {
      WireFields.putString(b, m);
    }
    return b.flip();
  }

  /**
   * Decodes a release; every problem names the field and its value.
   *
   * @throws IllegalArgumentException when the bytes are not a valid release
   */
  public static ReleaseRequest decode(ByteBuffer bytes) {
    WireFields f = new WireFields(bytes, "release request");
    f.need(FIXED_BYTES, "header");
    WireFields.expect("release magic", f.b.getInt(), MAGIC);
    WireFields.expect("release version", f.b.getShort(), VERSION);
    long reader = f.b.getLong();
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
    return new ReleaseRequest(reader, shuffle, maps);
  }
}

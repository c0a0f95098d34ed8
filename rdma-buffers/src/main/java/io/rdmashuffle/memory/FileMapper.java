/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * How a registrar wants the pieces of a served file mapped. A served file is always opened for
 * reading only and mapped read-only: the serving process can never write it. {@link #SHARED} maps
 * the file's own pages ({@code MAP_SHARED}, what every transport takes where the kernel lets it); a
 * registrar whose kernel refuses to pin such a mapping (verbs on Linux 6.1, see {@code
 * FileMappings}) maps it private instead, and pinning then copies the pages.
 */
public interface FileMapper {
  /** The file's own pages, read-only ({@link FileChannel.MapMode#READ_ONLY}). */
  FileMapper SHARED =
      new FileMapper() {
        @Override
        public ByteBuffer map(FileChannel channel, long offset, int size) throws IOException {
          return channel.map(FileChannel.MapMode.READ_ONLY, offset, size);
        }

        @Override
        public void unmap(ByteBuffer mapping) {
          DirectMemory.free(mapping);
        }

        @Override
        public boolean copies() {
          return false;
        }

        @Override
        public String toString() {
          return "shared read-only";
        }
      };

  /**
   * Maps {@code [offset, offset + size)} of {@code channel} (open for reading only) read-only.
   *
   * @param offset a multiple of the page size
   */
  ByteBuffer map(FileChannel channel, long offset, int size) throws IOException;

  /** Unmaps a buffer {@link #map} returned, once nothing uses it any more. */
  void unmap(ByteBuffer mapping);

  /** Whether registering such a mapping copies the file's pages (a private mapping, pinned). */
  boolean copies();
}

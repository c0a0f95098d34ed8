package io.rdmashuffle.mapoutput;

import io.rdmashuffle.memory.DirectMemory;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A map output of another process on this host, read straight from its files (as Spark's stock
 * shuffle reads host-local blocks from disk): the meta file is read and checked against the
 * descriptor, the data range a reader needs is mapped read-only. The mapping is unmapped when
 * the last view of it is released. Owned by one {@link BlockFetcher}.
 */
final class HostLocalOutput {
  /** Mappings are at most this long (a mapping's length is an int). */
  static final long MAX_MAPPING = 1L << 30;

  private final long from;
  private final List<MappedByteBuffer> mappings = new ArrayList<>(1);
  private final AtomicInteger refs = new AtomicInteger(1);

  private HostLocalOutput(long from) {
    this.from = from;
  }

  /** Reads the entries of partitions {@code [start, end)} from the meta file beside the data. */
  static MapOutputMetaLayout.Ranges ranges(MapOutputDescriptor d, int start, int end)
      throws IOException {
    Path meta = MapOutputRegistry.metaPathFor(Path.of(d.dataPath()));
    try (FileChannel ch = FileChannel.open(meta, StandardOpenOption.READ)) {
      ByteBuffer header = readFully(ch, 0, MapOutputMetaLayout.HEADER_BYTES);
      MapOutputMetaLayout.validateHeader(header, d);
      ByteBuffer entries = readFully(ch, MapOutputMetaLayout.entriesOffset(start),
          MapOutputMetaLayout.entriesLength(start, end));
      return MapOutputMetaLayout.parse(entries, start, end, d.nonce(), d.data().fileLength());
    }
  }

  private static ByteBuffer readFully(FileChannel ch, long position, int length)
      throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length);
    while (b.hasRemaining()) {
      if (ch.read(b, position + b.position()) < 0) {
        throw new EOFException("meta file shorter than its descriptor says");
      }
    }
    return b.flip();
  }

  /** Maps data bytes {@code [from, to)} of the map output's data file. */
  static HostLocalOutput map(MapOutputDescriptor d, long from, long to) throws IOException {
    HostLocalOutput out = new HostLocalOutput(from);
    try (FileChannel ch = FileChannel.open(Path.of(d.dataPath()), StandardOpenOption.READ)) {
      if (ch.size() != d.data().fileLength()) {
        throw new IOException("data file length=" + ch.size() + ": its descriptor says "
            + d.data().fileLength() + " (replaced or truncated)");
      }
      for (long pos = from; pos < to; pos += MAX_MAPPING) {
        out.mappings.add(
            ch.map(FileChannel.MapMode.READ_ONLY, pos, Math.min(MAX_MAPPING, to - pos)));
      }
    } catch (IOException | RuntimeException e) {
      out.unmap();
      throw e;
    }
    return out;
  }

  /** Read-only views of bytes {@code [start, end)}; each view holds the mapping until released. */
  List<ByteBuffer> views(long start, long end) {
    refs.incrementAndGet();
    List<ByteBuffer> parts = new ArrayList<>(1);
    long pos = start;
    while (pos < end) {
      int index = (int) ((pos - from) / MAX_MAPPING);
      MappedByteBuffer m = mappings.get(index);
      int in = (int) (pos - from - index * MAX_MAPPING);
      int n = (int) Math.min(end - pos, m.capacity() - in);
      parts.add(m.slice(in, n).asReadOnlyBuffer());
      pos += n;
    }
    return parts;
  }

  /** Gives back one reference (a view's, or the owner's); the last one unmaps. */
  void release() {
    if (refs.decrementAndGet() == 0) {
      unmap();
    }
  }

  private void unmap() {
    for (MappedByteBuffer m : mappings) {
      DirectMemory.free(m);
    }
    mappings.clear();
  }
}

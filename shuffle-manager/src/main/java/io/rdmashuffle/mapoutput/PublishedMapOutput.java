package io.rdmashuffle.mapoutput;

import io.rdmashuffle.memory.RegisteredFile;
import io.rdmashuffle.memory.RegisteredRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One map output this process serves: its data file and meta file, mapped and registered for
 * remote READ, and the descriptor it was published with. Owned by the {@link MapOutputRegistry};
 * {@link #close()} withdraws both registrations (unmapping after in-flight READs), and deletes
 * the meta file (the data file is the engine's to delete).
 *
 * <p>Readers in the same process read it straight from the mappings ({@link #entries},
 * {@link #slices}), with no transport.
 */
public final class PublishedMapOutput implements AutoCloseable {
  private final MapOutputDescriptor descriptor;
  private final RegisteredFile data;
  private final RegisteredFile meta;
  private final Path metaPath;
  private final AtomicBoolean closed = new AtomicBoolean();

  PublishedMapOutput(
      MapOutputDescriptor descriptor, RegisteredFile data, RegisteredFile meta, Path metaPath) {
    this.descriptor = descriptor;
    this.data = data;
    this.meta = meta;
    this.metaPath = metaPath;
  }

  public MapOutputDescriptor descriptor() {
    return descriptor;
  }

  /** Registered bytes (data and meta). */
  public long registeredBytes() {
    return descriptor.isEmpty() ? 0 : data.length() + meta.length();
  }

  /** Registered regions (pieces of data and meta). */
  public int registeredRegions() {
    return descriptor.isEmpty() ? 0 : data.pieces().size() + meta.pieces().size();
  }

  /** The entries for partitions {@code [start, end)}, copied out of the meta mapping. */
  public ByteBuffer entries(int start, int end) {
    ByteBuffer b = ByteBuffer.allocate(MapOutputMetaLayout.entriesLength(start, end));
    meta.read(MapOutputMetaLayout.entriesOffset(start), b);
    return b.flip();
  }

  /** The meta file's header, copied out of its mapping. */
  public ByteBuffer header() {
    ByteBuffer b = ByteBuffer.allocate(MapOutputMetaLayout.HEADER_BYTES);
    meta.read(0, b);
    return b.flip();
  }

  /**
   * Read-only views of data bytes {@code [from, to)}, one per registered piece they touch. Each
   * piece is retained until {@code release} runs, so the mapping stays while the views are used.
   *
   * @return null when the map output was withdrawn meanwhile
   */
  public Views slices(long from, long to) {
    List<ByteBuffer> parts = new ArrayList<>(1);
    List<RegisteredRegion> held = new ArrayList<>(1);
    long piece = data.pieceSize();
    long pos = from;
    while (pos < to) {
      int index = (int) (pos / piece);
      RegisteredRegion r = data.pieces().get(index);
      if (!r.tryRetain()) {
        held.forEach(RegisteredRegion::release);
        return null;
      }
      held.add(r);
      int in = (int) (pos - index * piece);
      int n = (int) Math.min(to - pos, r.length() - in);
      parts.add(r.memory().buffer().slice(in, n).asReadOnlyBuffer());
      pos += n;
    }
    return new Views(parts, () -> held.forEach(RegisteredRegion::release));
  }

  /** Views of mapped bytes and what to run when they are no longer used. */
  public record Views(List<ByteBuffer> parts, Runnable release) {}

  /** Withdraws the registrations and deletes the meta file. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true) || descriptor.isEmpty()) {
      return;
    }
    try {
      meta.close();
    } finally {
      data.close();
      try {
        Files.deleteIfExists(metaPath);
      } catch (IOException e) {
        // the engine deletes its local directories at exit; a leftover meta file is harmless
      }
    }
  }
}

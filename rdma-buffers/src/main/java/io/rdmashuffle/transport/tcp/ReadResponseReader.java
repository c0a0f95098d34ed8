package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.RemoteAccessException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.IdentityHashMap;

/**
 * Reads a {@link TcpReadChannel}'s responses on the channel's one receiver thread and lands each
 * READ's bytes straight in its target memory: small responses through a staging buffer, the data of
 * a large one (and, after one, of the next: large READs come in runs) directly from the socket. It
 * is the only thread that writes into targets, so the channel lets it fail the READs in flight when
 * the connection ends: no target is written after its READ was reported. A response that breaks the
 * protocol (malformed header, an id not in flight, another length) ends the connection. Allocates
 * nothing per READ.
 */
final class ReadResponseReader implements Runnable {
  private static final int IN_BYTES = 64 * 1024;

  private final TcpReadChannel channel;
  private final SocketChannel ch;
  private final ByteBuffer in = DirectMemory.allocate(IN_BYTES);
  private final ResponseHeader header = new ResponseHeader();
  private final IdentityHashMap<RegisteredRegion, ByteBuffer> views = new IdentityHashMap<>();

  /** Whether the last response's data was too large for the staging buffer. */
  private boolean afterLarge;

  ReadResponseReader(TcpReadChannel channel, SocketChannel ch) {
    this.channel = channel;
    this.ch = ch;
    in.flip();
  }

  @Override
  public void run() {
    Exception end = null;
    try {
      while (true) {
        receiveOne();
      }
    } catch (IOException | RuntimeException e) {
      end = e;
    } finally {
      channel.receiverEnded(end);
      DirectMemory.free(in);
    }
  }

  private void receiveOne() throws IOException {
    fill(RESPONSE_HEADER_BYTES, afterLarge);
    int p = in.position();
    try {
      decodeResponseHeader(in, p, header);
    } catch (IllegalArgumentException e) {
      throw new IOException("protocol error: " + e.getMessage());
    }
    in.position(p + RESPONSE_HEADER_BYTES);
    int slot = header.id;
    int length = header.length;
    ReadOp op = channel.inFlight(slot);
    if (op == null || (header.status == STATUS_OK && length != op.length())) {
      throw new IOException("protocol error: response for request " + slot + " not in flight");
    }
    if (header.status != STATUS_OK) {
      channel.complete(
          slot, op, new RemoteAccessException(reasonOf(header.status), channel.peer(), op));
      return;
    }
    ByteBuffer v = viewOf(op.target()).clear();
    int offset = (int) op.targetOffset();
    int staged = Math.min(in.remaining(), length);
    v.put(offset, in, in.position(), staged);
    in.position(in.position() + staged);
    afterLarge = staged < length;
    if (afterLarge) {
      v.limit(offset + length).position(offset + staged);
      while (v.hasRemaining()) {
        if (ch.read(v) < 0) {
          throw new EOFException("peer closed the connection in the middle of a READ");
        }
      }
    }
    channel.complete(slot, op, null);
  }

  /**
   * Makes at least {@code n} bytes readable in {@code in}. After a large response the next one is
   * likely large too: then only its header is read, so its data lands in the target directly.
   */
  private void fill(int n, boolean headerOnly) throws IOException {
    if (in.remaining() >= n) {
      return;
    }
    in.compact();
    if (headerOnly) {
      in.limit(n);
    }
    while (in.position() < n) {
      if (ch.read(in) < 0) {
        throw new EOFException("peer closed the connection");
      }
    }
    in.flip();
  }

  private ByteBuffer viewOf(RegisteredRegion target) {
    ByteBuffer v = views.get(target);
    if (v == null) {
      if (views.size() >= 256) {
        views.clear();
      }
      v = target.memory().buffer().duplicate();
      views.put(target, v);
    }
    return v;
  }
}

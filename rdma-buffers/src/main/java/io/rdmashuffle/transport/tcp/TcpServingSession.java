package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.*;

import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.FailureKind;
import io.rdmashuffle.transport.Handshake;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.util.IdentityHashMap;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the READs of one authenticated connection, in order, straight from registered regions:
 * checks the rkey, that the region belongs to the application the peer proved, and the bounds;
 * then sends the bytes. Small responses are gathered into one staging buffer and sent with one
 * write; large ones go out directly: {@code FileChannel.transferTo} (sendfile, no copy in the
 * JVM) for mapped files, a write from the registered memory otherwise. Allocates nothing per
 * READ. Runs on its own thread, owned by {@link TcpResponder}.
 */
final class TcpServingSession implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TcpServingSession.class);
  private static final int IN_BYTES = REQUEST_BYTES * 2048;
  private static final int OUT_BYTES = 256 * 1024;
  /** Responses up to this size are copied into the staging buffer; larger ones are sent directly. */
  static final int COPY_LIMIT = 32 * 1024;

  private final TcpResponder responder;
  private final SocketChannel ch;
  private final TcpRegionTable table;
  private final TransportMetrics metrics;
  private final ByteBuffer in = ByteBuffer.allocateDirect(IN_BYTES);
  private final ByteBuffer out = ByteBuffer.allocateDirect(OUT_BYTES);
  /** Writable views of served memory for direct sends; bounded, cleared when full. */
  private final IdentityHashMap<MemoryPiece, ByteBuffer> views = new IdentityHashMap<>();
  private String application;

  TcpServingSession(TcpResponder responder, SocketChannel ch) {
    this.responder = responder;
    this.ch = ch;
    this.table = responder.transport().registrar().table();
    this.metrics = responder.transport().metrics();
  }

  @Override
  public void run() {
    FailureKind failure = null;
    try {
      if (!authenticate()) {
        failure = FailureKind.AUTHENTICATION;
        return;
      }
      serve();
    } catch (IOException e) {
      // the reader went away or the connection broke; the reader sees it on its side
      LOG.debug("READ connection from {} ended", application, e);
    } catch (RuntimeException e) {
      LOG.error("serving READs for {} failed", application, e);
    } finally {
      close();
      // this thread was the only user of the staging buffers
      DirectMemory.free(in);
      DirectMemory.free(out);
      responder.sessionEnded(this, failure);
    }
  }

  private boolean authenticate() throws IOException {
    ScheduledFuture<?> deadline = responder.handshakeDeadline(ch);
    try {
      application = Handshake.server(ch, responder.secrets()).application();
    } catch (Handshake.Refused e) {
      LOG.warn("refused a READ connection: {}", e.getMessage());
      return false;
    } catch (IOException e) {
      if (deadline.isDone()) {
        LOG.warn("refused a READ connection: no handshake within the connect timeout");
        return false;
      }
      throw e;
    }
    return deadline.cancel(false);
  }

  private void serve() throws IOException {
    while (true) {
      if (ch.read(in) < 0) {
        return;
      }
      in.flip();
      while (in.remaining() >= REQUEST_BYTES) {
        int p = in.position();
        serveOne(
            in.getInt(p + REQUEST_ID_OFFSET),
            in.getInt(p + REQUEST_RKEY_OFFSET),
            in.getInt(p + REQUEST_LENGTH_OFFSET),
            in.getLong(p + REQUEST_ADDRESS_OFFSET));
        in.position(p + REQUEST_BYTES);
      }
      in.compact();
      flush();
    }
  }

  private void serveOne(int id, int rkey, int length, long address) throws IOException {
    TcpRegion r = table.lookup(rkey);
    int status;
    if (r == null) {
      status = STATUS_BAD_RKEY;
    } else if (!r.owner().equals(application)) {
      status = STATUS_NOT_PERMITTED;
    } else if (length <= 0 || !r.contains(address, length)) {
      status = STATUS_OUT_OF_BOUNDS;
    } else if (!r.tryRetain()) {
      status = STATUS_DEREGISTERED;
    } else {
      try {
        send(id, r, (int) (address - r.address()), length);
      } finally {
        r.release();
      }
      metrics.readServed(length);
      return;
    }
    room(RESPONSE_HEADER_BYTES);
    header(id, status, 0);
  }

  private void send(int id, TcpRegion r, int offset, int length) throws IOException {
    MemoryPiece m = r.memory();
    if (length <= COPY_LIMIT) {
      room(RESPONSE_HEADER_BYTES + length);
      header(id, STATUS_OK, length);
      out.put(out.position(), m.buffer(), offset, length);
      out.position(out.position() + length);
      return;
    }
    room(RESPONSE_HEADER_BYTES);
    header(id, STATUS_OK, length);
    if (m.isFile() && SENDFILE) {
      flush();
      transferFully(m.file(), m.fileOffset() + offset, length);
      return;
    }
    // staged responses, this header and the payload leave in one gathering write
    ByteBuffer v = viewOf(m);
    v.limit(offset + length).position(offset);
    out.flip();
    gather[0] = out;
    gather[1] = v;
    while (v.hasRemaining()) {
      ch.write(gather);
    }
    out.clear();
  }

  static final boolean SENDFILE = Boolean.parseBoolean(System.getProperty("rdma.tcp.sendfile", "true"));
  private final ByteBuffer[] gather = new ByteBuffer[2];

  private void transferFully(FileChannel file, long position, long length) throws IOException {
    long done = 0;
    while (done < length) {
      long n = file.transferTo(position + done, length - done, ch);
      if (n <= 0) {
        // the file shrank under a registration: it can't be served, and the header is out
        throw new IOException("served file is shorter than its registration");
      }
      done += n;
    }
  }

  private ByteBuffer viewOf(MemoryPiece m) {
    ByteBuffer v = views.get(m);
    if (v == null) {
      if (views.size() >= 256) {
        views.clear();
      }
      v = m.buffer().duplicate();
      views.put(m, v);
    }
    return v;
  }

  private void header(int id, int status, int length) {
    int p = out.position();
    out.putInt(p + RESPONSE_ID_OFFSET, id);
    out.putInt(p + RESPONSE_STATUS_OFFSET, status);
    out.putInt(p + RESPONSE_LENGTH_OFFSET, length);
    out.position(p + RESPONSE_HEADER_BYTES);
  }

  private void room(int bytes) throws IOException {
    if (out.remaining() < bytes) {
      flush();
    }
  }

  private void flush() throws IOException {
    out.flip();
    while (out.hasRemaining()) {
      ch.write(out);
    }
    out.clear();
  }

  @Override
  public void close() {
    TcpResponder.closeQuietly(ch);
  }
}

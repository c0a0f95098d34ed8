package io.rdmashuffle.transport.server;

import io.rdmashuffle.transport.Refusal;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The connection server's accept loop: takes each connection off the listening socket and hands it
 * to {@link ConnectionServer#accepted} (which admits it to an I/O thread or refuses it), so it
 * never waits for a peer. It survives any error, out of memory and out of descriptors included: the
 * connection at hand is closed, the error counted and logged, and accepting goes on after a short
 * pause. Owned by {@link ConnectionServer}.
 */
final class Acceptor implements Runnable {
  private final ConnectionServer server;
  private final ServerSocketChannel listener;
  private final Thread thread;
  private volatile boolean closed;

  Acceptor(ConnectionServer server, ServerSocketChannel listener) {
    this.server = server;
    this.listener = listener;
    this.thread = new Thread(this, "rdma-accept-" + server.address().port());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  @Override
  public void run() {
    while (!closed) {
      SocketChannel ch = null;
      try {
        ch = listener.accept();
        server.accepted(ch);
      } catch (ClosedChannelException e) {
        if (closed) {
          return;
        }
        failed(ch, e); // closed under us without close(): nothing more will come
        return;
      } catch (Throwable t) {
        failed(ch, t);
        // out of descriptors or memory: accepting again at once would spin on the same error
        pause(t instanceof IOException ? 100 : 10);
      }
    }
  }

  private void failed(SocketChannel ch, Throwable t) {
    if (ch != null) {
      try {
        ch.close();
      } catch (Throwable ignored) {
        // the connection is being dropped for the error that is reported
      }
    }
    try {
      server.log().refused(Refusal.ACCEPT_FAILED, "a connection", "accepting failed", t);
    } catch (Throwable ignored) {
      // even logging failed (out of memory): the count is lost, accepting goes on
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      // not restored: an interrupted accept() would close the listening socket, and this thread
      // stops only through close()
    }
  }

  /** Stops accepting; the listening socket must be closed by the caller first or after. */
  void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // closing
    }
    if (Thread.currentThread() != thread) {
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

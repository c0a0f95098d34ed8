/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * An on-path attacker for tests: relays one TCP connection to {@code target}, records what the
 * client sent, and can inject bytes into the client-to-server stream between the client's writes.
 * It can also stand for a server that goes away mid-stream: {@link #cutAfter} hangs up both sides
 * once that many bytes went from the server to the client.
 */
public final class TcpRelay implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
  private volatile Socket client;
  private volatile Socket server;
  private final Object upstream = new Object();
  private volatile long cutAfter = Long.MAX_VALUE;

  public TcpRelay(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
    Thread t = new Thread(this::accept, "tcp-relay");
    t.setDaemon(true);
    t.start();
  }

  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Hangs up both sides once {@code bytes} went from the server to the client (the ones past it are
   * not relayed), as a server that stops mid-answer. Call before the client connects.
   */
  public TcpRelay cutAfter(long bytes) {
    cutAfter = bytes;
    return this;
  }

  private void accept() {
    try {
      client = listener.accept();
      server = new Socket();
      server.connect(target, 5000);
      pump(client.getInputStream(), server.getOutputStream(), true);
      pump(server.getInputStream(), client.getOutputStream(), false);
    } catch (IOException e) {
      close();
    }
  }

  private void pump(InputStream in, OutputStream out, boolean up) {
    Thread t =
        new Thread(
            () -> {
              byte[] b = new byte[64 * 1024];
              try {
                int n;
                long down = 0;
                while ((n = in.read(b)) >= 0) {
                  if (!up && down + n > cutAfter) {
                    out.write(b, 0, (int) (cutAfter - down));
                    break;
                  }
                  down += up ? 0 : n;
                  if (up) {
                    synchronized (upstream) {
                      fromClient.write(b, 0, n);
                      out.write(b, 0, n);
                    }
                  } else {
                    out.write(b, 0, n);
                  }
                }
              } catch (IOException e) {
                // either side hung up
              }
              close();
            },
            up ? "tcp-relay-up" : "tcp-relay-down");
    t.setDaemon(true);
    t.start();
  }

  /** Everything the client has sent so far. */
  public byte[] sentByClient() {
    synchronized (upstream) {
      return fromClient.toByteArray();
    }
  }

  /** Writes {@code bytes} to the server as if the client had sent them. */
  public void inject(byte[] bytes) throws IOException {
    synchronized (upstream) {
      server.getOutputStream().write(bytes);
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
      if (client != null) {
        client.close();
      }
      if (server != null) {
        server.close();
      }
    } catch (IOException e) {
      // closing a relay that failed
    }
  }
}

/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.handshake.Handshake;
import io.rdmashuffle.transport.handshake.Purpose;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;

/**
 * A hostile or stalled peer for tests: a blocking socket with read timeouts that speaks the
 * protocol only as far as a test makes it (through the layout classes).
 */
public final class RawPeer implements AutoCloseable {
  private final Socket s = new Socket();
  private final InputStream in;
  private final OutputStream out;

  /** What the handshake established, once {@link #handshake} succeeded. */
  public Handshake.Result proven;

  public RawPeer(PeerAddress to) throws IOException {
    s.connect(to.socketAddress(), 5000);
    s.setSoTimeout(10_000);
    s.setTcpNoDelay(true);
    in = s.getInputStream();
    out = s.getOutputStream();
  }

  public RawPeer handshake(String app, byte[] secret, Purpose purpose) throws IOException {
    proven = Handshake.client(channel(), app, secret, purpose);
    return this;
  }

  public void send(byte[] b) throws IOException {
    out.write(b);
    out.flush();
  }

  public void send(ByteBuffer b) throws IOException {
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    send(a);
  }

  /** Exactly {@code n} bytes, or null when the connection ended first. */
  public ByteBuffer read(int n) throws IOException {
    byte[] b;
    try {
      b = in.readNBytes(n);
    } catch (SocketException reset) {
      return null;
    }
    return b.length < n ? null : ByteBuffer.wrap(b);
  }

  /** Whether the server closed (or reset) the connection within {@code millis}, sending nothing. */
  public boolean closedWithin(long millis) throws IOException {
    s.setSoTimeout((int) millis);
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException reset) {
      return true;
    }
  }

  /** The socket as a blocking channel (its read timeout holds). */
  public ByteChannel channel() throws IOException {
    return Handshake.channel(s);
  }

  @Override
  public void close() throws IOException {
    s.close();
  }
}

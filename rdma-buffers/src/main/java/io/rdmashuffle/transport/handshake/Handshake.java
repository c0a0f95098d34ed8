/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.handshake;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mutual challenge-response handshake of {@link HandshakeLayout}: what it establishes, why it
 * refuses, the proofs both sides compute, and the blocking driver of its two state machines ({@link
 * ClientHandshake}, {@link ServerHandshake}) for callers that own a blocking channel (the
 * connection server runs them without blocking). Callers bound it in time by closing the channel at
 * their deadline, or with a socket's read timeout ({@link #channel(Socket)}).
 */
public final class Handshake {
  static final SecureRandom RANDOM = new SecureRandom();
  static final byte[] SERVER_LABEL = ascii("rdma-shuffle server");
  static final byte[] CLIENT_LABEL = ascii("rdma-shuffle client");
  static final byte[] SESSION_LABEL = ascii("rdma-shuffle session");
  private static final byte[] CLIENT_TO_SERVER = ascii("rdma-shuffle client to server");
  private static final byte[] SERVER_TO_CLIENT = ascii("rdma-shuffle server to client");

  private Handshake() {}

  /** What a finished handshake established. */
  public record Result(String application, Purpose purpose, byte[] sessionKey) {
    /** Tags (client) or checks (server) the frames the client sends. */
    public FrameMac clientToServer() {
      return new FrameMac(hmac(sessionKey, CLIENT_TO_SERVER));
    }

    /** Tags (server) or checks (client) the frames the server sends. */
    public FrameMac serverToClient() {
      return new FrameMac(hmac(sessionKey, SERVER_TO_CLIENT));
    }

    /** Leaves out the session key. */
    @Override
    public String toString() {
      return "handshake of " + application + " for " + purpose;
    }
  }

  /** Why a handshake failed; the connection must be closed. */
  public static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    /** The specific refusal, for callers (and tests) that act on it. */
    public enum Reason {
      /** The peer does not speak this handshake at all. */
      BAD_MAGIC,
      /** The peer speaks another handshake version. */
      BAD_VERSION,
      /** A field is out of its range (an application id length, a reserved byte). */
      MALFORMED,
      /** The client named a purpose the server does not serve. */
      UNKNOWN_PURPOSE,
      /** Server side: the client named an application this server does not know. */
      UNKNOWN_APPLICATION,
      /** A proof did not match: the peer holds another secret. */
      WRONG_SECRET,
      /** Client side: the server refused our proof (it does not say whether it knows us). */
      REFUSED,
      /** The client nonce was used in an earlier handshake. */
      REPLAYED,
      /** A nonce came back from the side that issued it. */
      REFLECTED,
      /** Proven, but the server is at a connection bound; retry later. */
      BUSY,
      /** The peer closed the connection in the middle of the handshake. */
      HUNG_UP,
      /** The handshake did not finish by its deadline. */
      TIMEOUT
    }

    private final Reason reason;

    public Refused(Reason reason, String message) {
      super(message);
      this.reason = reason;
    }

    public Reason reason() {
      return reason;
    }
  }

  /**
   * Proves {@code secret} of {@code application} for a READ connection; see {@link
   * #client(ByteChannel, String, byte[], Purpose)}.
   */
  public static Result client(ByteChannel ch, String application, byte[] secret)
      throws IOException {
    return client(ch, application, secret, Purpose.READ);
  }

  /**
   * Proves {@code secret} of {@code application} to the server, for {@code purpose}, and checks the
   * server's proof.
   *
   * @throws Refused when the server can't prove the secret or refuses ours
   * @throws IOException when the channel fails
   */
  public static Result client(ByteChannel ch, String application, byte[] secret, Purpose purpose)
      throws IOException {
    return run(ch, new ClientHandshake(application, secret, purpose));
  }

  /**
   * Answers a client on a blocking channel, for any purpose: it must prove the secret of the
   * application it names, as known to {@code secrets}.
   *
   * @throws Refused when the client fails to prove it (the refusal has been sent)
   */
  public static Result server(ByteChannel ch, ApplicationSecrets secrets) throws IOException {
    return run(
        ch, new ServerHandshake(secrets, new NonceHistory(64, Long.MAX_VALUE / 4), p -> true));
  }

  /**
   * Runs {@code h} on a blocking channel to its end (a server side accepts every client that proved
   * the secret).
   *
   * @throws Refused when it is refused (what the refusal sends has been sent)
   */
  static Result run(ByteChannel ch, HandshakeSide h) throws IOException {
    while (true) {
      writeFully(ch, h.out());
      if (h.refusal() != null) {
        throw h.refusal();
      }
      if (h.done()) {
        return h.result();
      }
      if (h.verified()) {
        h.accept();
        continue;
      }
      if (!readFully(ch, h.in())) {
        h.hungUp();
        writeFully(ch, h.out());
        throw h.refusal();
      }
      h.received();
    }
  }

  /**
   * A blocking channel over a plain socket's streams, so that its read timeout holds (a {@code
   * SocketChannel}'s blocking reads ignore it); closing it closes the socket.
   */
  public static ByteChannel channel(Socket s) throws IOException {
    return channel(
        Channels.newChannel(s.getInputStream()), Channels.newChannel(s.getOutputStream()), s);
  }

  /** One channel of two ends (a pipe's, a socket's streams'); closing it closes {@code owner}. */
  public static ByteChannel channel(
      ReadableByteChannel in, WritableByteChannel out, Closeable owner) {
    return new ByteChannel() {
      private volatile boolean open = true;

      @Override
      public int read(ByteBuffer dst) throws IOException {
        return in.read(dst);
      }

      @Override
      public int write(ByteBuffer src) throws IOException {
        return out.write(src);
      }

      @Override
      public boolean isOpen() {
        return open;
      }

      @Override
      public void close() throws IOException {
        open = false;
        owner.close();
      }
    };
  }

  /**
   * Makes the JDK load what a handshake computes with (its random source, HMAC-SHA256 and the
   * SHA-256 of the frame MACs) by computing one of each with a throwaway key. A fresh JVM otherwise
   * pays it inside its first connection's handshake, on both sides: about 25 ms of provider and
   * class loading on an idle machine (a first HMAC took 26-28 ms, the next 0.14 ms), several times
   * that on a busy one, and that first connection is a reduce task's first locate or READ.
   * Idempotent; cheap after the first call.
   */
  public static void warmUp() {
    byte[] key = nonce();
    hmac(key, nonce());
    new FrameMac(key).sign(key, 0, key.length, new byte[FrameMac.TAG_BYTES], 0);
  }

  static byte[] nonce() {
    byte[] n = new byte[HandshakeLayout.NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /**
   * HMAC(secret, label | first nonce | second nonce | purpose | application): the client's and the
   * server's proofs and the session key, each with its label and its order of the nonces.
   */
  static byte[] proof(
      byte[] secret, byte[] label, byte[] first, byte[] second, Purpose purpose, byte[] app) {
    return hmac(secret, label, first, second, new byte[] {(byte) purpose.code()}, app);
  }

  static byte[] hmac(byte[] key, byte[]... parts) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      for (byte[] p : parts) {
        mac.update(p);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** Fills {@code b}; false when the channel ended first. */
  private static boolean readFully(ByteChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      int n;
      try {
        n = ch.read(b);
      } catch (EOFException e) {
        return false;
      }
      if (n < 0) {
        return false;
      }
    }
    return true;
  }

  private static void writeFully(ByteChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }
}

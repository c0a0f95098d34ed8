package io.rdmashuffle.transport;

import static io.rdmashuffle.transport.HandshakeLayout.*;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mutual challenge-response handshake of {@link HandshakeLayout}, over a blocking channel.
 * Shared by every transport (verbs runs it on its TCP side channel before a queue pair may serve
 * anything). Callers bound it in time by closing the channel at their deadline.
 */
public final class Handshake {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final byte[] SERVER_LABEL = "rdma-shuffle server".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CLIENT_LABEL = "rdma-shuffle client".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] SESSION_LABEL = "rdma-shuffle session".getBytes(StandardCharsets.US_ASCII);

  private Handshake() {}

  /** What a finished handshake established. */
  public record Result(String application, byte[] sessionKey) {}

  /** Why the server side refused; the connection must be closed. */
  public static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
      super(message);
    }
  }

  /**
   * Proves {@code secret} of {@code application} to the server and checks the server's proof.
   *
   * @throws Refused when the server can't prove the secret or refuses ours
   * @throws IOException when the channel fails
   */
  public static Result client(ByteChannel ch, String application, byte[] secret) throws IOException {
    byte[] app = application.getBytes(StandardCharsets.UTF_8);
    if (app.length == 0 || app.length > MAX_APPLICATION_BYTES) {
      throw new IllegalArgumentException("application id length=" + app.length + ": invalid");
    }
    byte[] clientNonce = nonce();
    ByteBuffer hello = ByteBuffer.allocate(HELLO_FIXED_BYTES + app.length);
    hello.putInt(MAGIC).putShort(VERSION).putShort((short) app.length).put(clientNonce).put(app);
    writeFully(ch, hello.flip());

    ByteBuffer challenge = readFully(ch, CHALLENGE_BYTES);
    if (challenge.getInt(CHALLENGE_MAGIC_OFFSET) != MAGIC) {
      throw new Refused("peer is not an rdma-shuffle responder (bad magic)");
    }
    int status = challenge.getInt(CHALLENGE_STATUS_OFFSET);
    if (status == STATUS_BAD_VERSION) {
      throw new Refused("peer speaks another handshake version than " + VERSION);
    }
    byte[] serverNonce = bytes(challenge, CHALLENGE_NONCE_OFFSET, NONCE_BYTES);
    byte[] serverProof = bytes(challenge, CHALLENGE_PROOF_OFFSET, PROOF_BYTES);
    byte[] expected = hmac(secret, SERVER_LABEL, clientNonce, serverNonce, app);
    if (!MessageDigest.isEqual(expected, serverProof)) {
      throw new Refused(
          "peer could not prove the secret of application " + application
              + " (another application's peer, or a wrong secret)");
    }
    writeFully(ch, ByteBuffer.wrap(hmac(secret, CLIENT_LABEL, serverNonce, clientNonce, app)));
    ByteBuffer result = readFully(ch, RESULT_BYTES);
    if (result.getInt(0) != STATUS_OK) {
      throw new Refused("peer refused our proof for application " + application);
    }
    return new Result(application, hmac(secret, SESSION_LABEL, clientNonce, serverNonce, app));
  }

  /**
   * Answers a client: it must prove the secret of the application it names, as known to {@code
   * secrets}. An unknown application gets a challenge it can't answer, indistinguishable from a
   * wrong secret.
   *
   * @throws Refused when the client fails to prove it (the result has been sent)
   */
  public static Result server(ByteChannel ch, ApplicationSecrets secrets) throws IOException {
    ByteBuffer fixed = readFully(ch, HELLO_FIXED_BYTES);
    if (fixed.getInt(HELLO_MAGIC_OFFSET) != MAGIC) {
      throw new Refused("client is not an rdma-shuffle reader (bad magic)");
    }
    byte[] serverNonce = nonce();
    if (fixed.getShort(HELLO_VERSION_OFFSET) != VERSION) {
      ByteBuffer c = ByteBuffer.allocate(CHALLENGE_BYTES);
      c.putInt(MAGIC).putInt(STATUS_BAD_VERSION).put(serverNonce).put(new byte[PROOF_BYTES]);
      writeFully(ch, c.flip());
      throw new Refused("client speaks handshake version " + fixed.getShort(HELLO_VERSION_OFFSET));
    }
    int appLength = fixed.getShort(HELLO_APP_LENGTH_OFFSET) & 0xffff;
    if (appLength == 0 || appLength > MAX_APPLICATION_BYTES) {
      throw new Refused("client sent application id length=" + appLength);
    }
    byte[] clientNonce = bytes(fixed, HELLO_NONCE_OFFSET, NONCE_BYTES);
    byte[] app = bytes(readFully(ch, appLength), 0, appLength);
    String application = new String(app, StandardCharsets.UTF_8);
    byte[] secret = secrets.secretOf(application);
    boolean known = secret != null;
    if (!known) {
      secret = nonce();
    }
    ByteBuffer challenge = ByteBuffer.allocate(CHALLENGE_BYTES);
    challenge.putInt(MAGIC).putInt(STATUS_OK).put(serverNonce);
    challenge.put(hmac(secret, SERVER_LABEL, clientNonce, serverNonce, app));
    writeFully(ch, challenge.flip());

    byte[] proof;
    try {
      proof = bytes(readFully(ch, PROOF_MESSAGE_BYTES), 0, PROOF_BYTES);
    } catch (EOFException e) {
      // what a client does when our proof fails its check: a wrong secret or another application
      throw new Refused("client of application " + application + " hung up instead of proving"
          + " the secret (it holds another secret, or gave up)");
    }
    boolean ok =
        MessageDigest.isEqual(hmac(secret, CLIENT_LABEL, serverNonce, clientNonce, app), proof)
            && known;
    ByteBuffer result = ByteBuffer.allocate(RESULT_BYTES);
    result.putInt(ok ? STATUS_OK : STATUS_REFUSED);
    writeFully(ch, result.flip());
    if (!ok) {
      throw new Refused("client did not prove the secret of application " + application);
    }
    return new Result(application, hmac(secret, SESSION_LABEL, clientNonce, serverNonce, app));
  }

  private static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
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

  private static byte[] bytes(ByteBuffer b, int offset, int length) {
    byte[] out = new byte[length];
    b.get(offset, out);
    return out;
  }

  private static ByteBuffer readFully(ByteChannel ch, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n);
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        throw new EOFException("connection closed during the handshake");
      }
    }
    return b.flip();
  }

  private static void writeFully(ByteChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }
}

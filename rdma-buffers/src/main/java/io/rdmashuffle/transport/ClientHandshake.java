package io.rdmashuffle.transport;

import static io.rdmashuffle.transport.HandshakeLayout.*;

import io.rdmashuffle.transport.Handshake.Refused;
import io.rdmashuffle.transport.Handshake.Refused.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * The client's side of {@link HandshakeLayout} as a state machine that never blocks: send {@link
 * #out()}, fill {@link #in()}, call {@link #received()}, until {@link #done()} or {@link
 * #refusal()}. One per connection attempt, on one thread at a time.
 */
public final class ClientHandshake {
  private enum Step {
    CHALLENGE,
    RESULT,
    DONE,
    REFUSED
  }

  private final String application;
  private final byte[] app;
  private final byte[] secret;
  private final Purpose purpose;
  private final byte[] clientNonce = Handshake.nonce();
  private byte[] serverNonce;
  private Step step = Step.CHALLENGE;
  private ByteBuffer in = ByteBuffer.allocate(CHALLENGE_BYTES);
  private ByteBuffer out;
  private Refused refusal;
  private Handshake.Result result;

  public ClientHandshake(String application, byte[] secret, Purpose purpose) {
    this.application = application;
    this.app = application.getBytes(StandardCharsets.UTF_8);
    this.secret = secret.clone();
    this.purpose = purpose;
    this.out = encodeHello(purpose.code(), clientNonce, app);
  }

  /** Bytes to send now (possibly none). */
  public ByteBuffer out() {
    return out;
  }

  /** The buffer to fill before the next {@link #received()}; null when nothing more is read. */
  public ByteBuffer in() {
    return step == Step.CHALLENGE || step == Step.RESULT ? in : null;
  }

  public boolean done() {
    return step == Step.DONE;
  }

  public Handshake.Result result() {
    return result;
  }

  /** Why the handshake failed, or null. */
  public Refused refusal() {
    return refusal;
  }

  /** {@link #in()} is full: takes the next step. */
  public void received() {
    in.flip();
    try {
      if (step == Step.CHALLENGE) {
        onChallenge(decodeChallenge(in));
      } else if (step == Step.RESULT) {
        onResult(in);
      }
    } catch (IllegalArgumentException e) {
      refuse(
          e.getMessage().startsWith("magic=") ? Reason.BAD_MAGIC : Reason.MALFORMED,
          "peer is not an rdma-shuffle server of this version (" + e.getMessage() + ")");
    }
  }

  /** The server closed the connection before the handshake finished. */
  public void hungUp() {
    refuse(Reason.HUNG_UP, "peer closed the connection during the handshake");
  }

  private void onChallenge(Challenge c) {
    switch (c.status()) {
      case STATUS_OK -> {}
      case STATUS_BAD_VERSION -> {
        refuse(Reason.BAD_VERSION, "peer speaks another handshake version than " + VERSION);
        return;
      }
      case STATUS_UNKNOWN_PURPOSE -> {
        refuse(
            Reason.UNKNOWN_PURPOSE,
            "peer does not serve "
                + purpose
                + " connections (it runs another transport or version)");
        return;
      }
      case STATUS_REPLAYED, STATUS_REFLECTED -> {
        refuse(
            c.status() == STATUS_REPLAYED ? Reason.REPLAYED : Reason.REFLECTED,
            "peer refused our handshake as "
                + (c.status() == STATUS_REPLAYED ? "replayed" : "reflected"));
        return;
      }
      default -> {
        refuse(Reason.MALFORMED, "peer sent challenge status=" + c.status());
        return;
      }
    }
    if (Arrays.equals(c.nonce(), clientNonce)) {
      refuse(Reason.REFLECTED, "peer sent our own nonce back: a reflected handshake");
      return;
    }
    serverNonce = c.nonce();
    byte[] p = {(byte) purpose.code()};
    // the client proves first; the server proves itself in its RESULT
    out =
        ByteBuffer.wrap(
            Handshake.hmac(secret, Handshake.CLIENT_LABEL, serverNonce, clientNonce, p, app));
    in = ByteBuffer.allocate(RESULT_BYTES);
    step = Step.RESULT;
  }

  private void onResult(ByteBuffer b) {
    int status = decodeResult(b);
    if (status == STATUS_REFUSED) {
      refuse(
          Reason.WRONG_SECRET,
          "peer refused our proof: we could not prove the secret of application "
              + application
              + " to it (a wrong secret, or an application it does not serve)");
      return;
    }
    if (status != STATUS_OK && status != STATUS_BUSY) {
      refuse(Reason.MALFORMED, "peer sent result status=" + status);
      return;
    }
    byte[] p = {(byte) purpose.code()};
    byte[] expected =
        Handshake.hmac(secret, Handshake.SERVER_LABEL, clientNonce, serverNonce, p, app);
    if (!MessageDigest.isEqual(expected, decodeResultProof(b))) {
      refuse(
          Reason.WRONG_SECRET,
          "peer could not prove the secret of application "
              + application
              + " (it is not a server of that application)");
      return;
    }
    if (status == STATUS_BUSY) {
      refuse(Reason.BUSY, "peer is at a connection bound; retry later");
      return;
    }
    result =
        new Handshake.Result(
            application,
            purpose,
            Handshake.hmac(secret, Handshake.SESSION_LABEL, clientNonce, serverNonce, p, app));
    step = Step.DONE;
  }

  private void refuse(Reason reason, String message) {
    refusal = new Refused(reason, message);
    step = Step.REFUSED;
    out = ByteBuffer.allocate(0);
  }
}

package io.rdmashuffle.transport;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HandshakeTest {
  private static final byte[] SECRET = "0123456789abcdef-secret".getBytes(StandardCharsets.UTF_8);

  /** Two connected in-memory channels that record what crossed them. */
  private static final class Wire {
    final Pipe up;
    final Pipe down;
    final java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();

    Wire() throws IOException {
      up = Pipe.open();
      down = Pipe.open();
    }

    ByteChannel clientEnd() {
      return end(up.sink(), down.source());
    }

    ByteChannel serverEnd() {
      return end(down.sink(), up.source());
    }

    private ByteChannel end(Pipe.SinkChannel out, Pipe.SourceChannel in) {
      return new ByteChannel() {
        @Override public int read(ByteBuffer dst) throws IOException {
          return in.read(dst);
        }

        @Override public int write(ByteBuffer src) throws IOException {
          synchronized (seen) {
            ByteBuffer d = src.duplicate();
            byte[] b = new byte[d.remaining()];
            d.get(b);
            seen.write(b, 0, b.length);
          }
          return out.write(src);
        }

        @Override public boolean isOpen() {
          return true;
        }

        @Override public void close() throws IOException {
          out.close();
        }
      };
    }
  }

  @Test
  void bothSidesProveTheSecretWithoutSendingIt() throws Exception {
    Wire w = new Wire();
    CompletableFuture<Handshake.Result> server = CompletableFuture.supplyAsync(() -> {
      try {
        return Handshake.server(w.serverEnd(), ApplicationSecrets.of("app-1", SECRET));
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    });
    Handshake.Result client = Handshake.client(w.clientEnd(), "app-1", SECRET);
    Handshake.Result s = server.get(10, TimeUnit.SECONDS);
    assertEquals("app-1", s.application());
    assertArrayEquals(client.sessionKey(), s.sessionKey(), "both sides derive one session key");
    String wire = new String(w.seen.toByteArray(), StandardCharsets.ISO_8859_1);
    assertFalse(wire.contains(new String(SECRET, StandardCharsets.ISO_8859_1)), "the secret crossed the wire");
  }

  @Test
  void aWrongSecretIsRefusedOnBothSides() throws Exception {
    Wire w = new Wire();
    CompletableFuture<Throwable> server = CompletableFuture.supplyAsync(() -> {
      try {
        Handshake.server(w.serverEnd(), ApplicationSecrets.of("app-1", SECRET));
        return null;
      } catch (IOException e) {
        return e;
      }
    });
    byte[] wrong = "another-secret-0123456".getBytes(StandardCharsets.UTF_8);
    Handshake.Refused e =
        assertThrows(Handshake.Refused.class, () -> Handshake.client(w.clientEnd(), "app-1", wrong));
    assertTrue(e.getMessage().contains("could not prove"), e.getMessage());
    w.clientEnd().close();
    Throwable t = server.get(10, TimeUnit.SECONDS);
    assertNotNull(t, "the server must not accept a client that did not prove the secret");
  }

  @Test
  void aClientThatSkipsTheProofCheckIsStillRefusedByTheServer() throws Exception {
    Wire w = new Wire();
    CompletableFuture<Throwable> server = CompletableFuture.supplyAsync(() -> {
      try {
        Handshake.server(w.serverEnd(), ApplicationSecrets.of("app-1", SECRET));
        return null;
      } catch (IOException e) {
        return e;
      }
    });
    ByteChannel c = w.clientEnd();
    byte[] app = "app-1".getBytes(StandardCharsets.UTF_8);
    ByteBuffer hello = ByteBuffer.allocate(HandshakeLayout.HELLO_FIXED_BYTES + app.length);
    hello.putInt(HandshakeLayout.MAGIC).putShort(HandshakeLayout.VERSION).putShort((short) app.length)
        .put(new byte[HandshakeLayout.NONCE_BYTES]).put(app).flip();
    c.write(hello);
    ByteBuffer challenge = ByteBuffer.allocate(HandshakeLayout.CHALLENGE_BYTES);
    while (challenge.hasRemaining()) {
      c.read(challenge);
    }
    c.write(ByteBuffer.wrap(new byte[HandshakeLayout.PROOF_BYTES]));
    ByteBuffer result = ByteBuffer.allocate(4);
    while (result.hasRemaining()) {
      c.read(result);
    }
    assertEquals(HandshakeLayout.STATUS_REFUSED, result.getInt(0));
    assertInstanceOf(Handshake.Refused.class, server.get(10, TimeUnit.SECONDS));
  }
}

package io.rdmashuffle.mapoutput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals map output descriptors with the application's secret (AES-GCM, key derived by
 * HMAC-SHA256), because engines print the field that carries them: Spark logs a map status's
 * {@code BlockManagerId}, topology info included, with every fetch failure. Sealed, the rkeys
 * and addresses inside (capabilities) never reach a log, and a descriptor that was not made by
 * a process of this application (forged, or another application's) fails to open.
 *
 * <pre>
 *  sealed = nonce (12 bytes) | AES-GCM(key, nonce, descriptor bytes) | tag (16 bytes)
 * </pre>
 *
 * Thread-safe; one per process and application.
 */
public final class DescriptorSeal {
  public static final int NONCE_BYTES = 12;
  public static final int TAG_BITS = 128;
  private static final byte[] LABEL =
      "rdma-shuffle map output descriptor seal 1".getBytes(StandardCharsets.UTF_8);

  private final SecretKeySpec key;
  private final SecureRandom random = new SecureRandom();

  /** @param secret the application's secret, as the transport's handshake proves it */
  public DescriptorSeal(byte[] secret) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      this.key = new SecretKeySpec(Arrays.copyOf(mac.doFinal(LABEL), 16), "AES");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HmacSHA256", e);
    }
  }

  public byte[] seal(byte[] plain) {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
      byte[] sealed = c.doFinal(plain);
      return ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed).array();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has AES/GCM", e);
    }
  }

  /**
   * @throws IllegalArgumentException when the bytes were not sealed with this secret, or were
   *     changed
   */
  public byte[] open(byte[] sealed) {
    if (sealed.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new IllegalArgumentException("sealed descriptor length=" + sealed.length
          + ": shorter than nonce and tag");
    }
    try {
      Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
      c.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, sealed, 0, NONCE_BYTES));
      return c.doFinal(sealed, NONCE_BYTES, sealed.length - NONCE_BYTES);
    } catch (javax.crypto.AEADBadTagException e) {
      throw new IllegalArgumentException(
          "map output descriptor not sealed with this application's secret (or changed)", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has AES/GCM", e);
    }
  }
}

package io.rdmashuffle.transport;

/**
 * Byte layout of the authentication handshake (big-endian), run on every connection before any
 * READ is served. Both sides prove the application secret by HMAC-SHA256 over fresh nonces; the
 * secret never crosses the wire.
 *
 * <pre>
 * HELLO, client to server:
 *  0       4       6       8                              40
 *  +-------+-------+-------+------------------------------+-------------------------+
 *  | magic |version|app len|      client nonce (32)       | application id (UTF-8)  |
 *  +-------+-------+-------+------------------------------+-------------------------+
 *
 * CHALLENGE, server to client:
 *  0       4       8                              40                             72
 *  +-------+-------+------------------------------+------------------------------+
 *  | magic |status |      server nonce (32)       |      server proof (32)       |
 *  +-------+-------+------------------------------+------------------------------+
 *
 * PROOF, client to server:            RESULT, server to client:
 *  0                              32   0       4
 *  +------------------------------+    +-------+
 *  |      client proof (32)       |    |status |
 *  +------------------------------+    +-------+
 * </pre>
 *
 * server proof = HMAC(secret, "rdma-shuffle server" | client nonce | server nonce | application),
 * client proof = HMAC(secret, "rdma-shuffle client" | server nonce | client nonce | application).
 */
public final class HandshakeLayout {
  public static final int MAGIC = 0x52445348; // "RDSH"
  public static final short VERSION = 1;
  public static final int NONCE_BYTES = 32;
  public static final int PROOF_BYTES = 32;
  public static final int MAX_APPLICATION_BYTES = 1024;

  public static final int HELLO_MAGIC_OFFSET = 0;
  public static final int HELLO_VERSION_OFFSET = 4;
  public static final int HELLO_APP_LENGTH_OFFSET = 6;
  public static final int HELLO_NONCE_OFFSET = 8;
  public static final int HELLO_FIXED_BYTES = HELLO_NONCE_OFFSET + NONCE_BYTES;

  public static final int CHALLENGE_MAGIC_OFFSET = 0;
  public static final int CHALLENGE_STATUS_OFFSET = 4;
  public static final int CHALLENGE_NONCE_OFFSET = 8;
  public static final int CHALLENGE_PROOF_OFFSET = CHALLENGE_NONCE_OFFSET + NONCE_BYTES;
  public static final int CHALLENGE_BYTES = CHALLENGE_PROOF_OFFSET + PROOF_BYTES;

  public static final int PROOF_MESSAGE_BYTES = PROOF_BYTES;
  public static final int RESULT_BYTES = 4;

  public static final int STATUS_OK = 0;
  public static final int STATUS_REFUSED = 1;
  public static final int STATUS_BAD_VERSION = 2;

  private HandshakeLayout() {}
}

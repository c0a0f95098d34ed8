package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.transport.RemoteAccessException;

/**
 * Byte layout (big-endian) of the tcp transport's READ protocol, after the handshake.
 *
 * <pre>
 * READ request, reader to responder (24 bytes):
 *  0               4               8               12              16                              24
 *  +---------------+---------------+---------------+---------------+-------------------------------+
 *  |  request id   |     rkey      |    length     |   reserved    |        remote address         |
 *  +---------------+---------------+---------------+---------------+-------------------------------+
 *
 * READ response, responder to reader (12 bytes, then length bytes of data when status is OK):
 *  0               4               8               12
 *  +---------------+---------------+---------------+------------------------------
 *  |  request id   |    status     |    length     |  data (status OK only) ...
 *  +---------------+---------------+---------------+------------------------------
 * </pre>
 *
 * Responses come in request order. The request id is the reader's slot number; the responder
 * echoes it and never interprets it.
 */
final class TcpFrameLayout {
  static final int REQUEST_ID_OFFSET = 0;
  static final int REQUEST_RKEY_OFFSET = 4;
  static final int REQUEST_LENGTH_OFFSET = 8;
  static final int REQUEST_RESERVED_OFFSET = 12;
  static final int REQUEST_ADDRESS_OFFSET = 16;
  static final int REQUEST_BYTES = 24;

  static final int RESPONSE_ID_OFFSET = 0;
  static final int RESPONSE_STATUS_OFFSET = 4;
  static final int RESPONSE_LENGTH_OFFSET = 8;
  static final int RESPONSE_HEADER_BYTES = 12;

  static final int STATUS_OK = 0;
  static final int STATUS_BAD_RKEY = 1;
  static final int STATUS_OUT_OF_BOUNDS = 2;
  static final int STATUS_DEREGISTERED = 3;
  static final int STATUS_NOT_PERMITTED = 4;

  private TcpFrameLayout() {}

  static RemoteAccessException.Reason reasonOf(int status) {
    return switch (status) {
      case STATUS_BAD_RKEY -> RemoteAccessException.Reason.BAD_RKEY;
      case STATUS_OUT_OF_BOUNDS -> RemoteAccessException.Reason.OUT_OF_BOUNDS;
      case STATUS_DEREGISTERED -> RemoteAccessException.Reason.DEREGISTERED;
      case STATUS_NOT_PERMITTED -> RemoteAccessException.Reason.NOT_PERMITTED;
      default -> throw new IllegalArgumentException("response status=" + status + ": unknown");
    };
  }
}

/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import io.rdmashuffle.serve.ServedAsAnotherUserContract;

/** {@link ServedAsAnotherUserContract} on tcp, over loopback. */
class TcpServedAsAnotherUserTest extends ServedAsAnotherUserContract {
  @Override
  protected String transport() {
    return "tcp";
  }

  @Override
  protected String serverHost() {
    return "127.0.0.1";
  }

  @Override
  protected String clientHost() {
    return "127.0.0.1";
  }

  @Override
  protected long timeoutSeconds() {
    return 10;
  }
}

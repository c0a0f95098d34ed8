/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.transport.PeerAddress;

/**
 * The process serving some map outputs: its transport address, whether it runs on this host, and
 * whether it is this very process.
 */
public record Owner(PeerAddress address, boolean sameHost, boolean thisProcess) {}

/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Code that uses DiSNI's classes. Everything in this package is defined by the class loader that
 * also defines DiSNI ({@code DisniClassLoader}, created by {@link
 * io.rdmashuffle.transport.verbs.NativeLibrary}), never by the application's class loader, so that
 * DiSNI's {@code System.loadLibrary("disni")} finds our library. Classes here are reached through
 * {@link io.rdmashuffle.transport.verbs.NativeLibrary#newInstance} and talk to the rest of
 * rdma-shuffle only through types the parent loader defines (the transport SPI, {@code
 * java.util.function}, {@code java.util.concurrent}); a class outside this package must not name a
 * class inside it, or it would get a second, unusable copy of DiSNI.
 *
 * <p>May import: io.rdmashuffle.config, io.rdmashuffle.memory, io.rdmashuffle.metrics,
 * io.rdmashuffle.transport, io.rdmashuffle.transport.engine, io.rdmashuffle.transport.handshake,
 * io.rdmashuffle.transport.provider, io.rdmashuffle.transport.server,
 * io.rdmashuffle.transport.verbs, io.rdmashuffle.transport.verbs.engine. No package may import it
 * (see above).
 */
package io.rdmashuffle.transport.verbs.disni;

/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.config;

/**
 * A setting has a value that can't be used. The message always names the key and the value, so an
 * operator can fix the right line of the right file.
 */
public final class ConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }

  static ConfigException badValue(String key, String rawValue, String why) {
    return new ConfigException(key + "=" + rawValue + ": " + why);
  }
}

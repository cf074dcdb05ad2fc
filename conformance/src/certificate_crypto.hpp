// The cryptography of certificates (certificate.hpp), over OpenSSL's libcrypto: SHA-256
// digests and Ed25519 signatures with keys in PEM files (`openssl genpkey -algorithm
// ed25519`). Keys are handled as raw 32-byte public keys in lowercase hex inside a
// certificate, so that any Ed25519 implementation can check a signature.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace bp::conformance::crypto {

struct Ed25519Signature {
  std::string public_key;  // 32 bytes, hex
  std::string value;       // 64 bytes, hex
};

// Signs `message` with the Ed25519 private key in `private_key_pem`; throws bp::Error naming
// the file when it cannot be read, is not a private key or is not Ed25519.
Ed25519Signature sign_ed25519(std::string_view message,
                              const std::filesystem::path& private_key_pem);

// True when `signature` (hex) is a valid Ed25519 signature of `message` by `public_key`
// (hex); false for a malformed key or signature too.
bool verify_ed25519(std::string_view message, const std::string& public_key,
                    const std::string& signature);

// The raw public key (hex) of a PEM file holding an Ed25519 public key (or a private key,
// whose public half is taken); throws bp::Error naming the file otherwise.
std::string ed25519_public_key(const std::filesystem::path& pem);

// The first 16 hex digits of the SHA-256 of a raw public key: how messages name a signer.
std::string key_fingerprint(const std::string& public_key_hex);

}  // namespace bp::conformance::crypto

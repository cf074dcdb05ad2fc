// SHA-256 and Ed25519 for certificates, over OpenSSL's EVP interface (certificate_crypto.hpp).
#include "certificate_crypto.hpp"

#include "backplane/conformance/certificate.hpp"

#include <backplane/core/error.hpp>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

namespace bp::conformance {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
struct FileClose {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// OpenSSL's last error, for a message; clears its queue.
std::string openssl_error() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "no detail from OpenSSL";
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return text.data();
}

std::string to_hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 15];
  }
  return out;
}

// Hex to bytes; nullopt for odd lengths or other characters.
std::optional<std::vector<unsigned char>> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::vector<unsigned char> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  return out;
}

// Reads a PEM key: a private key when `private_key`, else a public key or, failing that, a
// private key's public half.
Pkey read_pem_key(const std::filesystem::path& pem, bool private_key) {
  std::unique_ptr<std::FILE, FileClose> file(std::fopen(pem.c_str(), "rb"));
  BP_CHECK(file != nullptr, ErrorCode::InvalidArgument, "key file '{}': cannot be read",
           pem.string());
  Pkey key(private_key ? PEM_read_PrivateKey(file.get(), nullptr, nullptr, nullptr)
                       : PEM_read_PUBKEY(file.get(), nullptr, nullptr, nullptr));
  if (!key && !private_key) {
    ERR_clear_error();
    std::rewind(file.get());
    key.reset(PEM_read_PrivateKey(file.get(), nullptr, nullptr, nullptr));
  }
  BP_CHECK(key != nullptr, ErrorCode::InvalidArgument, "key file '{}': no PEM {} key in it ({})",
           pem.string(), private_key ? "private" : "public", openssl_error());
  BP_CHECK(EVP_PKEY_get_id(key.get()) == EVP_PKEY_ED25519, ErrorCode::InvalidArgument,
           "key file '{}': the key is {}, not Ed25519 (make one with `openssl genpkey "
           "-algorithm ed25519`)",
           pem.string(), EVP_PKEY_get0_type_name(key.get()));
  return key;
}

std::string raw_public_key(EVP_PKEY* key) {
  std::array<unsigned char, 32> raw{};
  size_t n = raw.size();
  BP_CHECK(EVP_PKEY_get_raw_public_key(key, raw.data(), &n) == 1 && n == raw.size(),
           ErrorCode::Internal, "Ed25519 public key: {}", openssl_error());
  return to_hex(raw.data(), raw.size());
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, 32> digest{};
  unsigned int n = 0;
  BP_CHECK(EVP_Digest(bytes.data(), bytes.size(), digest.data(), &n, EVP_sha256(), nullptr) == 1,
           ErrorCode::Internal, "SHA-256: {}", openssl_error());
  return to_hex(digest.data(), n);
}

std::string file_sha256(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  BP_CHECK(in.good(), ErrorCode::InvalidArgument, "'{}': cannot be read to hash it", file.string());
  MdCtx ctx(EVP_MD_CTX_new());
  BP_CHECK(ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1, ErrorCode::Internal,
           "SHA-256: {}", openssl_error());
  std::vector<char> buffer(1 << 16);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got > 0) EVP_DigestUpdate(ctx.get(), buffer.data(), got);
  }
  BP_CHECK(in.eof(), ErrorCode::InvalidArgument, "'{}': read error while hashing it",
           file.string());
  std::array<unsigned char, 32> digest{};
  unsigned int n = 0;
  EVP_DigestFinal_ex(ctx.get(), digest.data(), &n);
  return to_hex(digest.data(), n);
}

namespace crypto {

Ed25519Signature sign_ed25519(std::string_view message,
                              const std::filesystem::path& private_key_pem) {
  const Pkey key = read_pem_key(private_key_pem, true);
  MdCtx ctx(EVP_MD_CTX_new());
  // Ed25519 hashes the message itself: no digest is named (NULL), as OpenSSL requires.
  BP_CHECK(ctx && EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) == 1,
           ErrorCode::Internal, "signing with '{}': {}", private_key_pem.string(), openssl_error());
  std::array<unsigned char, 64> signature{};
  size_t n = signature.size();
  BP_CHECK(
      EVP_DigestSign(ctx.get(), signature.data(), &n,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1,
      ErrorCode::Internal, "signing with '{}': {}", private_key_pem.string(), openssl_error());
  return {raw_public_key(key.get()), to_hex(signature.data(), n)};
}

bool verify_ed25519(std::string_view message, const std::string& public_key,
                    const std::string& signature) {
  const auto raw_key = from_hex(public_key);
  const auto raw_signature = from_hex(signature);
  if (!raw_key || raw_key->size() != 32 || !raw_signature || raw_signature->size() != 64)
    return false;
  Pkey key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, raw_key->data(), 32));
  MdCtx ctx(EVP_MD_CTX_new());
  const bool ok =
      key && ctx && EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) == 1 &&
      EVP_DigestVerify(ctx.get(), raw_signature->data(), raw_signature->size(),
                       reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1;
  ERR_clear_error();
  return ok;
}

std::string ed25519_public_key(const std::filesystem::path& pem) {
  return raw_public_key(read_pem_key(pem, false).get());
}

std::string key_fingerprint(const std::string& public_key_hex) {
  const auto raw = from_hex(public_key_hex);
  const std::string bytes = raw ? std::string(raw->begin(), raw->end()) : public_key_hex;
  return sha256_hex(bytes).substr(0, 16);
}

}  // namespace crypto
}  // namespace bp::conformance

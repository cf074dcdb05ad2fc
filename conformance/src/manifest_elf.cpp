// The manifest note of a plugin file (manifest.hpp), read from the ELF64 section headers
// with plain file reads: the plugin is never loaded, so none of its code (constructors,
// bp_plugin_query) runs, and a file for another machine reads as well. Only what finding
// one note needs: the file header, the section headers, the section name string table and
// the notes of the section .note.backplane.manifest (little-endian ELF64, as every
// platform Backplane builds for).
#include "backplane/conformance/manifest.hpp"

#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <fstream>

namespace bp::conformance {
namespace {

constexpr uint32_t kShtNote = 7;
constexpr uint16_t kShnXindex = 0xffff;
constexpr size_t kFileHeaderSize = 64;
constexpr size_t kSectionHeaderSize = 64;

// Little-endian integers from a byte string (whatever the host's order).
uint64_t le(const std::string& bytes, size_t at, size_t size) {
  uint64_t v = 0;
  for (size_t i = 0; i < size; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
}

struct Section {
  uint32_t name = 0, type = 0;
  uint64_t offset = 0, size = 0, link = 0;
};

class ElfFile {
 public:
  explicit ElfFile(const std::filesystem::path& path)
      : path_(path.string()), in_(path, std::ios::binary) {
    BP_CHECK(in_.good(), ErrorCode::InvalidArgument,
             "'{}' cannot be read (missing or not readable)", path_);
    in_.seekg(0, std::ios::end);
    size_ = static_cast<uint64_t>(in_.tellg());
  }

  [[noreturn]] void fail(std::string_view why) const {
    BP_FAIL(ErrorCode::InvalidArgument, "'{}' {}", path_, why);
  }

  // `size` bytes at `offset`; the file ends before them: truncated.
  std::string read(uint64_t offset, uint64_t size, std::string_view what) {
    if (offset > size_ || size > size_ - offset)
      fail(
          fmt::format("is truncated or corrupt: its {} ({} bytes at offset {}) ends past the "
                      "end of the file ({} bytes)",
                      what, size, offset, size_));
    std::string out(size, '\0');
    in_.seekg(static_cast<std::streamoff>(offset));
    in_.read(out.data(), static_cast<std::streamsize>(size));
    if (!in_) fail(fmt::format("cannot be read at offset {}", offset));
    return out;
  }

  // The section headers, after checking the file header.
  std::vector<Section> sections(uint16_t& names_index) {
    const std::string header = read(0, std::min<uint64_t>(size_, kFileHeaderSize), "header");
    static constexpr std::string_view kMagic = "\x7f\x45\x4c\x46";  // \x7f E L F
    if (header.size() < 4 || std::string_view(header).substr(0, 4) != kMagic)
      fail("is not an ELF file (no \\x7fELF at its start): not a shared library");
    if (header.size() < kFileHeaderSize || header[4] != 2 || header[5] != 1)
      fail(
          "is not a 64-bit little-endian ELF file (the ELF reader of `backplane inspect` "
          "reads only those)");
    const uint64_t table = le(header, 0x28, 8);
    uint64_t count = le(header, 0x3c, 2);
    names_index = static_cast<uint16_t>(le(header, 0x3e, 2));
    if (table == 0) fail("has no section headers (stripped of them?)");
    if (le(header, 0x3a, 2) != kSectionHeaderSize) fail("has section headers of an unknown size");
    // More than 0xff00 sections: the real count and index are in section 0 (ELF gABI).
    const Section first = section(table, 0);
    if (count == 0) count = first.size;
    if (names_index == kShnXindex) names_index = static_cast<uint16_t>(first.link);
    std::vector<Section> out;
    for (uint64_t i = 0; i < count; ++i) out.push_back(section(table, i));
    if (names_index >= out.size()) fail("names no section name table");
    return out;
  }

 private:
  Section section(uint64_t table, uint64_t i) {
    const std::string h =
        read(table + i * kSectionHeaderSize, kSectionHeaderSize, "section header table");
    return {static_cast<uint32_t>(le(h, 0, 4)), static_cast<uint32_t>(le(h, 4, 4)), le(h, 24, 8),
            le(h, 32, 8), le(h, 40, 4)};
  }

  std::string path_;
  std::ifstream in_;
  uint64_t size_ = 0;
};

// The NUL-terminated name at `at` of the section name table.
std::string name_at(const std::string& names, uint32_t at) {
  if (at >= names.size()) return {};
  return std::string(names.c_str() + at);
}

uint64_t padded(uint64_t n) {
  return (n + 3) & ~uint64_t{3};
}

// The Backplane note among the notes of one section.
ManifestNote parse_notes(const ElfFile& file, const std::string& notes) {
  for (uint64_t at = 0; at + 12 <= notes.size();) {
    const uint64_t namesz = le(notes, at, 4), descsz = le(notes, at + 4, 4);
    const uint64_t type = le(notes, at + 8, 4);
    const uint64_t name_at_ = at + 12, desc_at = name_at_ + padded(namesz);
    if (desc_at > notes.size() || descsz > notes.size() - desc_at)
      file.fail(fmt::format("has a malformed note in {} (its sizes run past the section)",
                            kManifestNoteSection));
    const std::string owner = notes.substr(name_at_, namesz);
    if (owner == std::string(kManifestNoteOwner) + '\0' && type == kManifestNoteType) {
      if (descsz < 8)
        file.fail(fmt::format("has a {} note too short for its ABI version", kManifestNoteSection));
      return {static_cast<uint32_t>(le(notes, desc_at, 4)),
              static_cast<uint32_t>(le(notes, desc_at + 4, 4)),
              notes.substr(desc_at + 8, descsz - 8)};
    }
    at = desc_at + padded(descsz);
  }
  file.fail(fmt::format("has a {} section without a Backplane note of type {}",
                        kManifestNoteSection, kManifestNoteType));
}

}  // namespace

std::optional<ManifestNote> read_manifest_note(const std::filesystem::path& path) {
  ElfFile file(path);
  uint16_t names_index = 0;
  const std::vector<Section> sections = file.sections(names_index);
  const Section& table = sections[names_index];
  const std::string names = file.read(table.offset, table.size, "section name table");
  for (const Section& s : sections) {
    if (name_at(names, s.name) != kManifestNoteSection) continue;
    if (s.type != kShtNote)
      file.fail(fmt::format("has a section {} that is not a note (type {})", kManifestNoteSection,
                            s.type));
    return parse_notes(file, file.read(s.offset, s.size, std::string(kManifestNoteSection)));
  }
  return std::nullopt;
}

Manifest read_plugin_manifest(const std::filesystem::path& path) {
  const std::optional<ManifestNote> note = read_manifest_note(path);
  BP_CHECK(note.has_value(), ErrorCode::InvalidArgument,
           "'{}': no capability manifest (built without backplane_add_plugin's MANIFEST)",
           path.string());
  Manifest m =
      parse_manifest(note->text, fmt::format("{}({})", path.string(), kManifestNoteSection));
  m.abi_major = note->abi_major;
  m.abi_minor = note->abi_minor;
  return m;
}

}  // namespace bp::conformance

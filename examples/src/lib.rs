//! Examples live as binaries next to this file.

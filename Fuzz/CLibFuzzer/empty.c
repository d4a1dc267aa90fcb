// The target is the header; SwiftPM wants a source file.

package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/model"
)

// maxInputBytes bounds what --scenario and --box read: the largest real files are a few
// kilobytes (a box of 8 GPUs with its matrices is about 10 KiB), so 4 MiB leaves room for any
// box splitscope accepts while a mistaken path (/dev/zero, a log) stops at once.
const maxInputBytes = 4 << 20

// readInputFile reads the file a flag names, refusing what is not a regular file (a directory,
// a FIFO, a device) and what is larger than maxInputBytes, without ever blocking: the mode is
// checked before opening, the file is opened non-blocking (a FIFO swapped in meanwhile opens at
// once instead of waiting for a writer) and checked again once open. Every refusal is a
// FieldError naming the flag and the file.
func readInputFile(flag, path string) ([]byte, error) {
	return readBoundedFile(flag, path, maxInputBytes, "a scenario or box file")
}

// readBoundedFile is readInputFile with its own limit, limit bytes, for files of the kind what
// ("an nccl-tests log").
func readBoundedFile(flag, path string, limit int64, what string) ([]byte, error) {
	refuse := func(why string) error { return &model.FieldError{Field: flag, Value: path, Allowed: why} }
	fi, err := os.Stat(path)
	if err != nil {
		return nil, refuse("cannot read the file: " + pathErr(err))
	}
	if why := notRegular(fi); why != "" {
		return nil, refuse(why)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, refuse("cannot read the file: " + pathErr(err))
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, refuse("cannot read the file: " + pathErr(err))
	}
	if why := notRegular(fi); why != "" {
		return nil, refuse(why)
	}
	if fi.Size() > limit {
		return nil, refuse(tooLarge(fi.Size(), limit, what))
	}
	// The size may change under us (a growing log): read one byte more than allowed to tell.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, refuse("cannot read the file: " + pathErr(err))
	}
	if int64(len(data)) > limit {
		return nil, refuse(tooLarge(-1, limit, what))
	}
	return data, nil
}

func tooLarge(size, limit int64, what string) string {
	unit, scale := "MiB", int64(1<<20)
	if limit < 1<<20 {
		unit, scale = "KiB", 1<<10 // a password file
	}
	if size < 0 {
		return fmt.Sprintf("larger than %d %s, the limit for %s", limit/scale, unit, what)
	}
	return fmt.Sprintf("is %.1f %s: larger than %d %s, the limit for %s", float64(size)/float64(scale), unit, limit/scale, unit, what)
}

// notRegular says what fi is when it is not a regular file, "" when it is.
func notRegular(fi fs.FileInfo) string {
	m := fi.Mode()
	var what string
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a block device"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	default:
		what = "not a regular file"
	}
	return "must be a regular file, not " + what
}

// pathErr is the reason of a file system error without the path, which the message names already.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err.Error()
	}
	return err.Error()
}

// output is a file a command writes: the flag that names it and the path, "-" for stdout.
type output struct {
	flag, path string
}

// checkOutputs refuses, before any work is done, outputs that would lose data: an existing
// file without force, or two outputs that are one file (the same path however spelt, through
// a symbolic link, or a hard link), including standard output twice. Outputs with an empty path
// are not asked for and are skipped.
func checkOutputs(force bool, outs ...output) error {
	var errs model.ValidationError
	var done []output
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if prev, ok := sameOutput(done, o); ok {
			allowed := fmt.Sprintf("the same file as --%s %s: give each its own file", prev.flag, prev.path)
			if o.path == "-" {
				allowed = fmt.Sprintf("--%s writes to standard output already: give one of them a file", prev.flag)
			}
			errs = append(errs, &model.FieldError{Field: o.flag, Value: o.path, Allowed: allowed})
			continue
		}
		done = append(done, o)
		if o.path == "-" {
			continue
		}
		if err := checkOutput(o, force); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// sameOutput finds the output among outs that o would write over.
func sameOutput(outs []output, o output) (output, bool) {
	for _, prev := range outs {
		if prev.path == "-" || o.path == "-" {
			if prev.path == o.path {
				return prev, true
			}
			continue
		}
		if resolvePath(prev.path) == resolvePath(o.path) || sameExisting(prev.path, o.path) {
			return prev, true
		}
	}
	return output{}, false
}

// checkOutput refuses an output that exists (unless force) or cannot be a file's place.
func checkOutput(o output, force bool) *model.FieldError {
	fi, err := os.Lstat(o.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new file: its directory must be there (bad input, not a failure to write).
		dir := filepath.Dir(o.path)
		if di, derr := os.Stat(dir); derr != nil || !di.IsDir() {
			why := "does not exist"
			if derr == nil {
				why = "is not a directory"
			} else if !errors.Is(derr, fs.ErrNotExist) {
				why = "cannot be read: " + pathErr(derr)
			}
			return &model.FieldError{Field: o.flag, Value: o.path, Allowed: fmt.Sprintf("the directory %s %s: create it or name a file in one that does", model.Shorten(dir), why)}
		}
		return nil
	case err != nil:
		return &model.FieldError{Field: o.flag, Value: o.path, Allowed: "cannot write there: " + pathErr(err)}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = os.Stat(o.path); err != nil {
			return &model.FieldError{Field: o.flag, Value: o.path, Allowed: "is a symbolic link to a missing file: name the file itself"}
		}
	}
	switch {
	case fi.IsDir():
		return &model.FieldError{Field: o.flag, Value: o.path, Allowed: "is a directory: name a file"}
	case !fi.Mode().IsRegular():
		return nil // a device or a FIFO (/dev/null): written to in place, nothing is lost
	case !force:
		return existsError(o)
	}
	return nil
}

func existsError(o output) *model.FieldError {
	return &model.FieldError{Field: o.flag, Value: o.path, Allowed: "the file exists: pass --force to replace it"}
}

// resolvePath is an absolute, clean spelling of path with its symbolic links resolved as far
// as they exist, so that two spellings of one file compare equal.
func resolvePath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// sameExisting reports whether a and b both exist and are one file (hard links included).
func sameExisting(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// writeOutput writes data to o: standard output for "-"; otherwise a new file, created
// exclusively so that a file appearing meanwhile is never clobbered; with force an existing
// regular file is replaced whole (a temporary file in its directory, renamed over it, so that
// a failure leaves the old one), and a device or FIFO is written in place.
func writeOutput(stdout io.Writer, o output, data []byte, force bool) error {
	if o.path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	err := writeNew(o.path, data)
	if !errors.Is(err, fs.ErrExist) {
		return outputError(o, err)
	}
	// It exists (it appeared since checkOutputs, or it is a device or a FIFO).
	if ferr := checkOutput(o, force); ferr != nil {
		return ferr
	}
	fi, err := os.Stat(o.path)
	switch {
	case err != nil:
		return outputError(o, err)
	case !fi.Mode().IsRegular():
		return outputError(o, writeInPlace(o.path, data))
	}
	return outputError(o, replace(o.path, fi.Mode().Perm(), data))
}

// outputError wraps a failure to write o: exit 1, as the user's input was fine.
func outputError(o output, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("--%s %s: %s", o.flag, o.path, pathErr(err))
}

// writeNew creates path, which must not exist, and writes data; a failed write removes it.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
	}
	return err
}

// writeInPlace writes data to a device or FIFO that exists.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// replace puts data in place of the regular file at path (through symbolic links, which stay),
// keeping its permissions: the old contents stay whole until the rename.
func replace(path string, perm fs.FileMode, data []byte) error {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// looksLikeConfigPath says whether a --model value names a file rather than a preset: a path
// (a separator, a .json name) or something on disk.
func looksLikeConfigPath(v string) bool {
	if assets.LooksLikeConfigPath(v) {
		return true
	}
	_, err := os.Stat(v)
	return err == nil
}

// readHFConfigFlag reads --model's config.json (or the folder's), bounded, into a model; a
// problem is a FieldError naming --model, the file and the field.
func readHFConfigFlag(path string) (model.Arch, *model.FieldError) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "config.json")
		if _, err := os.Stat(path); err != nil {
			return model.Arch{}, &model.FieldError{Field: "model", Value: filepath.Dir(path), Allowed: "a folder without a config.json: give a preset id, a config.json or the folder of one"}
		}
	}
	data, err := readBoundedFile("model", path, assets.MaxHFConfigBytes, "a Hugging Face config.json")
	if err != nil {
		var fe *model.FieldError
		if errors.As(err, &fe) {
			return model.Arch{}, fe
		}
		return model.Arch{}, &model.FieldError{Field: "model", Value: path, Allowed: err.Error()}
	}
	a, err := assets.ReadHFConfig(path, data)
	if abs, aerr := filepath.Abs(path); aerr == nil {
		a.File = abs
	}
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), "assets: "+path+": ", "")
		return model.Arch{}, &model.FieldError{Field: "model", Value: path, Allowed: strings.ReplaceAll(msg, "\n", "; ")}
	}
	return a, nil
}

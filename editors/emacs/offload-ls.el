;;; offload-ls.el --- offload-ls (GPU kernels in Rust) through Eglot  -*- lexical-binding: t; -*-

;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: languages, tools, rust, gpu

;;; Commentary:

;; offload-ls is a language server for GPU kernels written in Rust (rustc -Zoffload,
;; Rust-CUDA, rust-gpu, CubeCL): lints, hover on kernels and launches, quick fixes, and
;; building and running on the GPU.
;;
;; Eglot (1.x, and Emacs 29's built-in Eglot) runs ONE language server per major mode and
;; project, so offload-ls cannot run beside rust-analyzer in the same Rust buffer the way it
;; does in VS Code, Neovim or Helix.  This file therefore offers a choice:
;;
;;   (add-to-list 'load-path "/path/to/offload-ls/editors/emacs")
;;   (require 'offload-ls)
;;   (offload-ls-eglot-setup)     ; M-x eglot in Rust buffers starts offload-ls
;;
;; and M-x offload-ls-toggle switches the Rust buffers of the current project between
;; offload-ls and Eglot's default (rust-analyzer), restarting the server.  Use offload-ls
;; while working on kernels, rust-analyzer otherwise.  (lsp-mode, unlike Eglot, can run
;; add-on servers beside the main one; that setup is not provided here.)
;;
;; Settings: `offload-ls-settings' (a plist of the "offload-ls" section,
;; server/offload_ls/settings.py) is sent as initializationOptions.  Per project, set
;; `eglot-workspace-configuration' in .dir-locals.el, e.g.
;;
;;   ((nil . ((eglot-workspace-configuration
;;             . (:offload-ls (:trustedWorkspaces ["/home/me/src/my-kernels"]))))))
;;
;; Workspace trust: offload-ls compiles (build scripts, proc macros) and runs a crate only
;; when its folder is listed in trustedWorkspaces (absolute paths, or "*").  Untrusted, you
;; get every lint, hover and quick fix, but no compile on save, build or run.
;;
;; Commands: `offload-ls-build', `offload-ls-run', `offload-ls-run-report',
;; `offload-ls-doctor', `offload-ls-cancel' send workspace/executeCommand and show the
;; result in the *offload-ls* buffer; the program's output during a run streams there too.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'url-util)

(defgroup offload-ls nil
  "offload-ls, the language server for GPU kernels in Rust, through Eglot."
  :group 'eglot
  :prefix "offload-ls-")

(defcustom offload-ls-command '("offload-ls" "serve")
  "Program and arguments that start offload-ls (it speaks LSP on stdio)."
  :type '(repeat string))

(defcustom offload-ls-settings '(:trustedWorkspaces [])
  "The \"offload-ls\" settings section, sent as initializationOptions.
A plist with the keys of server/offload_ls/settings.py, for example
  (:trustedWorkspaces [\"/home/me/src/my-kernels\"]
   :rules (:unsafe_in_kernel \"allow\")
   :checkOnSave t :deviceImage \"host\").
Lists are vectors; false is :json-false.  Leave out what you do not set:
nil is sent as null."
  :type 'plist)

(defcustom offload-ls-major-modes '(rust-mode rust-ts-mode rustic-mode)
  "Major modes whose buffers offload-ls manages when it is used for Rust."
  :type '(repeat symbol))

(defvar offload-ls-use-for-rust nil
  "Non-nil when `eglot-server-programs' maps Rust modes to offload-ls.")

(defconst offload-ls-commands
  '((build . "offload-ls.build")
    (run . "offload-ls.run")
    (report . "offload-ls.showRunReport")
    (doctor . "offload-ls.doctor")
    (cancel . "offload-ls.cancel"))
  "The workspace commands of offload-ls (server/offload_ls/lsp/commands.py).")

(defun offload-ls-eglot-contact (&optional _interactive)
  "The Eglot contact of offload-ls: `offload-ls-command' with the settings.
Returns (PROGRAM ARGS... :initializationOptions (:offload-ls SETTINGS))."
  (append offload-ls-command
          (list :initializationOptions (list :offload-ls offload-ls-settings))))

(defun offload-ls--entry-p (entry)
  "Non-nil if ENTRY of `eglot-server-programs' is the one offload-ls adds."
  (eq (cdr-safe entry) #'offload-ls-eglot-contact))

(defun offload-ls-eglot-setup (&optional off)
  "Make Eglot start offload-ls for Rust buffers (`offload-ls-major-modes').
With OFF non-nil, remove that entry, so that Eglot's own choice for Rust
\(rust-analyzer) applies again.  Returns the new `eglot-server-programs'."
  (setq eglot-server-programs (cl-remove-if #'offload-ls--entry-p eglot-server-programs))
  (unless off
    (push (cons offload-ls-major-modes #'offload-ls-eglot-contact) eglot-server-programs))
  (setq offload-ls-use-for-rust (not off))
  eglot-server-programs)

(defun offload-ls-toggle ()
  "Switch the Rust buffers of this project between offload-ls and rust-analyzer.
Shuts the current Eglot server down; the server for the new choice starts
after this command (through `eglot-ensure')."
  (interactive)
  (offload-ls-eglot-setup offload-ls-use-for-rust)
  (let ((server (eglot-current-server)))
    (when server
      (eglot-shutdown server)))
  (when (apply #'derived-mode-p offload-ls-major-modes)
    (eglot-ensure))
  (message "offload-ls: Rust buffers now use %s"
           (if offload-ls-use-for-rust "offload-ls" "Eglot's default server (rust-analyzer)")))

;;; Commands

(defun offload-ls--uri (&optional file)
  "The file: URI of FILE (default: the current buffer's file)."
  (let ((path (expand-file-name (or file buffer-file-name
                                    (user-error "offload-ls: this buffer has no file")))))
    (cond ((fboundp 'eglot-path-to-uri) (funcall 'eglot-path-to-uri path))
          ((fboundp 'eglot--path-to-uri) (funcall 'eglot--path-to-uri path))
          (t (concat "file://" (url-hexify-string path url-path-allowed-chars))))))

(defvar offload-ls-last-result nil
  "Alist (COMMAND . RESULT) of the last result of each offload-ls command.")

(defun offload-ls--buffer ()
  "The *offload-ls* buffer."
  (let ((buf (get-buffer-create "*offload-ls*")))
    (with-current-buffer buf
      (unless (derived-mode-p 'special-mode) (special-mode)))
    buf))

(defun offload-ls--insert (&rest lines)
  "Append LINES to the *offload-ls* buffer."
  (with-current-buffer (offload-ls--buffer)
    (let ((inhibit-read-only t))
      (goto-char (point-max))
      (dolist (line lines) (insert line "\n")))))

(defun offload-ls--show (command result)
  "Show RESULT (a plist) of the offload-ls COMMAND (a string)."
  (setf (alist-get command offload-ls-last-result nil nil #'equal) result)
  (let ((ok (not (eq (plist-get result :ok) :json-false)))
        (error-text (plist-get result :error)))
    (cond
     ((and (not ok) (stringp error-text))
      (offload-ls--insert (format "%s: %s" command error-text))
      (message "%s" error-text))
     ((member command '("offload-ls.run" "offload-ls.showRunReport"))
      (offload-ls--insert (or (plist-get result :report) "")))
     ((equal command "offload-ls.build")
      (offload-ls--insert (format "build: %s, %s (%s) in %s s"
                                  (if ok "done" "failed")
                                  (or (plist-get result :exe) "no executable")
                                  (mapconcat #'identity (plist-get result :images) ", ")
                                  (plist-get result :seconds))))
     ((equal command "offload-ls.doctor")
      (offload-ls--insert (format "doctor: pipeline %s, target %s (%s)"
                                  (plist-get result :pipeline) (plist-get result :target)
                                  (plist-get result :arch)))
      (cl-loop for m across (or (plist-get result :missing) []) do
               (offload-ls--insert (concat "  missing: " m)))
      (cl-loop for n across (or (plist-get result :notes) []) do
               (offload-ls--insert (concat "  note: " n))))
     (t (offload-ls--insert (format "%s: %S" command result)))))
  (display-buffer (offload-ls--buffer))
  result)

(defun offload-ls-execute (command &optional arguments)
  "Send workspace/executeCommand COMMAND with ARGUMENTS (a vector) asynchronously.
The result is shown in *offload-ls* and kept in `offload-ls-last-result'."
  (let ((server (eglot--current-server-or-lose)))
    (jsonrpc-async-request
     server :workspace/executeCommand
     (list :command command :arguments (or arguments []))
     :success-fn (lambda (result) (offload-ls--show command result))
     :error-fn (lambda (err)
                 (offload-ls--show command (list :ok :json-false
                                                 :error (or (plist-get err :message)
                                                            (format "%S" err))))))))

(defun offload-ls--uri-args (&rest extra)
  "The argument vector [(:uri URI . EXTRA)] for the current buffer."
  (vector (append (list :uri (offload-ls--uri)) extra)))

(defun offload-ls-build (&optional device-image)
  "Build the crate of this buffer; DEVICE-IMAGE is \"gpu\", \"host\" or \"both\"."
  (interactive (list (let ((s (completing-read "Device image (empty: default): "
                                               '("gpu" "host" "both"))))
                       (unless (string-empty-p s) s))))
  (offload-ls-execute (alist-get 'build offload-ls-commands)
                      (apply #'offload-ls--uri-args (and device-image (list :deviceImage device-image)))))

(defun offload-ls-run (&optional args)
  "Build if stale and run the crate of this buffer with program ARGS (a list)."
  (interactive (list (split-string-and-unquote (read-string "Program arguments: "))))
  (offload-ls--insert "offload-ls: building and running ...")
  (offload-ls-execute (alist-get 'run offload-ls-commands)
                      (apply #'offload-ls--uri-args (and args (list :args (vconcat args))))))

(defun offload-ls-run-report ()
  "Show the last run report of the crate of this buffer."
  (interactive)
  (offload-ls-execute (alist-get 'report offload-ls-commands) (offload-ls--uri-args)))

(defun offload-ls-doctor ()
  "Show what the installed toolchain and GPUs can do."
  (interactive)
  (offload-ls-execute (alist-get 'doctor offload-ls-commands)))

(defun offload-ls-cancel ()
  "Cancel the running build or run of the crate of this buffer."
  (interactive)
  (offload-ls-execute (alist-get 'cancel offload-ls-commands) (offload-ls--uri-args)))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql offload-ls/runOutput)) &key stream line &allow-other-keys)
  "Append a line of the running program's output (STREAM, LINE) to *offload-ls*."
  (offload-ls--insert (if (equal stream "stderr") (concat "[stderr] " line) line)))

(provide 'offload-ls)
;;; offload-ls.el ends here

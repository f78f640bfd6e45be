;;; e2e.el --- drive offload-ls through Eglot and editors/emacs/offload-ls.el  -*- lexical-binding: t; -*-

;; Run by tests/editors/test_snippets.py as
;;   emacs --batch -l e2e.el
;; with OFFLOAD_LS_EMACS_DIR (editors/emacs), OFFLOAD_LS_EMACS_FILE (a .rs file in a git
;; repository), OFFLOAD_LS_EMACS_CMD (JSON list: the server command) and
;; OFFLOAD_LS_EMACS_OUT (where the JSON of what Eglot saw goes).  Every wait has a timeout.

(require 'json)
(require 'cl-lib)
(add-to-list 'load-path (getenv "OFFLOAD_LS_EMACS_DIR"))
(require 'offload-ls)

(defvar e2e-out nil)
(defun e2e-put (key value) (push (cons key value) e2e-out))

(defun e2e-wait (what pred &optional seconds)
  "Process events until PRED is non-nil, at most SECONDS (default 30)."
  (let ((deadline (+ (float-time) (or seconds 30))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or (funcall pred) (error "Timed out waiting for %s" what))))

(unless (fboundp 'rust-mode)            ; Emacs 28 has no Rust mode of its own
  (define-derived-mode rust-mode prog-mode "Rust"))

(defun e2e-line-char (pos)
  "0-based (LINE CHARACTERS-FROM-LINE-START) of buffer position POS."
  (save-excursion (goto-char pos) (list (1- (line-number-at-pos)) (- (point) (line-beginning-position)))))

(defun e2e-ours-first ()
  "Is the first entry of `eglot-server-programs' the one of offload-ls.el?"
  (if (offload-ls--entry-p (car eglot-server-programs)) t :json-false))

(defun e2e-main ()
  (setq offload-ls-command (append (json-read-from-string (getenv "OFFLOAD_LS_EMACS_CMD")) nil))
  (setq offload-ls-settings '(:trustedWorkspaces [] :rules (:unsafe_in_kernel "deny")))
  (e2e-put 'ours_first_before (e2e-ours-first))
  (offload-ls-eglot-setup)
  (e2e-put 'ours_first_after_setup (e2e-ours-first))
  (e2e-put 'first_entry_after_setup (format "%S" (car eglot-server-programs)))
  (find-file (getenv "OFFLOAD_LS_EMACS_FILE"))
  (rust-mode)
  (let* ((guess (eglot--guess-contact))
         (contact (nth 3 guess)))
    (e2e-put 'managed_modes (mapcar #'symbol-name (car guess)))
    (e2e-put 'contact_program (cl-loop for x in contact while (stringp x) collect x))
    (e2e-put 'initialization_options (plist-get contact :initializationOptions))
    (apply #'eglot--connect guess))
  (e2e-wait "the server" (lambda () (eglot-current-server)))
  (e2e-wait "diagnostics" (lambda () (flymake-diagnostics)))
  (e2e-put 'diagnostics
           (cl-loop for d in (sort (flymake-diagnostics)
                                   (lambda (a b) (< (flymake-diagnostic-beg a) (flymake-diagnostic-beg b))))
                    for beg = (flymake-diagnostic-beg d)
                    for end = (flymake-diagnostic-end d)
                    collect `((text . ,(flymake-diagnostic-text d))
                              (type . ,(symbol-name (flymake-diagnostic-type d)))
                              ;; 0-based line and character (code point) offsets
                              (start . ,(e2e-line-char beg))
                              (end . ,(e2e-line-char end)))))
  (dolist (cmd '(offload-ls-run-report offload-ls-build offload-ls-cancel offload-ls-doctor))
    (let ((name (alist-get (intern (substring (symbol-name cmd) (length "offload-ls-")))
                           '((run-report . "offload-ls.showRunReport") (build . "offload-ls.build")
                             (cancel . "offload-ls.cancel") (doctor . "offload-ls.doctor")))))
      (setq offload-ls-last-result (assoc-delete-all name offload-ls-last-result))
      (funcall cmd)
      (e2e-wait (symbol-name cmd) (lambda () (assoc name offload-ls-last-result)))
      (e2e-put (intern name) (cdr (assoc name offload-ls-last-result)))))
  (e2e-put 'output_buffer (with-current-buffer "*offload-ls*" (buffer-string)))
  (offload-ls-toggle)
  (e2e-put 'ours_anywhere_after_toggle
           (if (cl-some #'offload-ls--entry-p eglot-server-programs) t :json-false))
  (e2e-put 'use_for_rust_after_toggle (if offload-ls-use-for-rust t :json-false)))

(condition-case err
    (e2e-main)
  (error (e2e-put 'error (error-message-string err))))
(with-temp-file (getenv "OFFLOAD_LS_EMACS_OUT")
  (insert (json-encode e2e-out)))
(kill-emacs 0)
;;; e2e.el ends here

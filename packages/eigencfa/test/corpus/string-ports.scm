;; Output to string ports through writer closures, and call-with-output-string.
(define (make-writer port) (lambda (x) (write x port) (write-char #\space port)))
(define out (open-output-string))
(define w (make-writer out))
(for-each w '(1 "two" #\3))
(display (get-output-string out))
(display (call-with-output-string (lambda (port) ((make-writer port) 'sym))))
(define emitters (list (lambda (p) (display "a" p)) (lambda (p) (display "b" p))))
(display (call-with-output-string (lambda (p) (for-each (lambda (e) (e p)) emitters))))

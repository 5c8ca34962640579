;; dynamic-wind, parameterize and call-with-values in a small logging framework.
(define log '())
(define (note! x) (set! log (cons x log)))
(define indent (make-parameter 0))
(define formatter (make-parameter (lambda (s) s) (lambda (f) (lambda (s) (list 'fmt (f s))))))
(define (with-section name thunk)
  (dynamic-wind (lambda () (note! (list 'enter name)))
                thunk
                (lambda () (note! (list 'leave name)))))
(define result
  (with-section 'a
    (lambda ()
      (parameterize ((indent (+ (indent) 2)) (formatter (lambda (s) (list s s))))
        ((formatter) 'x)))))
(call-with-values (lambda () (values (lambda (a) (* a 2)) 21)) (lambda (f x) (note! (f x))))
(display (list result log))

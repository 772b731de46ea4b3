import {
  get,
  type FieldError,
  type FieldErrors,
  type FieldValues,
  type Path,
  type UseFormRegister,
} from 'react-hook-form';

/**
 * Binds `FormField`s to one react-hook-form form: `field('email')` is the
 * input's registration together with that field's error message, so the two
 * can never name different fields.
 */
export function formFields<T extends FieldValues>(
  register: UseFormRegister<T>,
  errors: FieldErrors<T>,
) {
  return (name: Path<T>) => ({
    ...register(name),
    error: (get(errors, name) as FieldError | undefined)?.message,
  });
}

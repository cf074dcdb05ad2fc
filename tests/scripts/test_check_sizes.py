"""Tests of scripts/check-sizes: how it finds C++ and Python functions and measures them, and
which table markers it honours. Plain unittest (stdlib only, as the script):
    /usr/bin/python3 tests/scripts/test_check_sizes.py
"""

import importlib.machinery
import importlib.util
import os
import pathlib
import tempfile
import textwrap
import unittest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "check-sizes"
_loader = importlib.machinery.SourceFileLoader("check_sizes", str(SCRIPT))
_spec = importlib.util.spec_from_loader("check_sizes", _loader)
check_sizes = importlib.util.module_from_spec(_spec)
_loader.exec_module(check_sizes)


def functions(source):
    """{name: length} of the C++ functions in `source`."""
    found = check_sizes.c_functions(textwrap.dedent(source))
    return {name: last - first + 1 for first, last, name in found}


def problems_of(source, suffix=".cpp", max_function=5, max_file=600):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "file" + suffix)
        with open(path, "w") as f:
            f.write(textwrap.dedent(source))
        kind = check_sizes.file_kind(path)
        problems = []
        check_sizes.check_file(path, kind, max_function, max_file, problems)
        return [p.split(": ", 1)[1] for p in problems]


class CFunctions(unittest.TestCase):
    def test_a_multi_line_signature_counts_from_its_first_line(self):
        self.assertEqual(functions("""
            std::vector<int> run_in_workers(const std::vector<int>& cases,
                                            int jobs) {
              return cases;
            }
            """), {"run_in_workers": 4})

    def test_a_lambda_argument_is_part_of_its_function(self):
        self.assertEqual(functions("""
            void f() {
              run([&](int x) {
                if (x) { return; }
              });
            }
            """), {"f": 5})

    def test_a_namespace_scope_lambda_is_a_function_of_its_own(self):
        self.assertEqual(functions("""
            const auto kFn = [](int v) {
              return v;
            };
            """), {"kFn (lambda)": 3})

    def test_braces_in_comments_strings_and_raw_strings_do_not_count(self):
        self.assertEqual(functions("""
            void f() {
              // }
              const char* a = "}";
              const char* b = R"x(} { })x";
              char c = '{';
            }
            void g() {
            }
            """), {"f": 6, "g": 2})

    def test_member_functions_constructors_and_operators_are_found(self):
        self.assertEqual(functions("""
            namespace a {
            class S {
             public:
              S(int y) : x_{y}, z_(y) {
                x_++;
              }
              S& operator=(const S&) {
                return *this;
              }
             private:
              int x_{1}, z_;
            };
            }  // namespace a
            """), {"S": 3, "operator=": 3})

    def test_tables_types_and_extern_blocks_are_not_functions(self):
        self.assertEqual(functions("""
            const int kTable[] = {
              1, 2, 3,
            };
            enum class E : int { A, B };
            std::vector<int> v{1, 2, 3};
            extern "C" {
            int c_entry(void) {
              return 0;
            }
            }
            """), {"c_entry": 3})

    def test_a_test_case_is_a_function(self):
        self.assertEqual(functions("""
            TEST_CASE(
                "a name over "
                "two lines") {
              CHECK(true);
            }
            """), {'TEST_CASE( "a name over " "two lines")': 5})

    def test_the_handlers_of_a_function_try_block_belong_to_it(self):
        self.assertEqual(functions("""
            int main() try {
              return 0;
            } catch (const std::exception& e) {
              return 1;
            }
            """), {"main": 5})

    def test_macro_lines_before_a_function_are_not_part_of_it(self):
        self.assertEqual(functions("""
            EW_UNARY(neg, T, -x)
            EW_UNARY(abs_, T, fabs(x))
            __kernel void fill(__global float* out) {
              out[0] = 0;
            }
            """), {"fill": 3})


class Markers(unittest.TestCase):
    LONG = "int f() {\n" + "  ++x;\n" * 5 + "}\n"

    def test_a_function_over_the_limit_is_reported(self):
        self.assertEqual(problems_of(self.LONG), ["function f is 7 lines (limit 5)"])

    def test_a_table_marker_before_the_definition_exempts_it(self):
        self.assertEqual(problems_of("// check-sizes: table: one row per op\n" + self.LONG), [])

    def test_a_marker_must_say_why(self):
        self.assertEqual(len(problems_of("// check-sizes: table\n" + self.LONG)), 2)

    def test_any_other_marker_is_an_error(self):
        self.assertIn("unknown check-sizes marker",
                      problems_of("// check-sizes: skip: too long\nint g() {\n}\n")[0])

    def test_a_marker_before_nothing_is_an_error(self):
        source = "int g() {\n}\n" + "\n" * 40 + "// check-sizes: table: stale\nint x = 1;\n"
        self.assertIn("neither in the file's first", problems_of(source)[0])

    def test_a_long_file_is_reported_unless_its_head_says_it_is_a_table(self):
        body = "int x;\n" * 30
        self.assertEqual(problems_of(body, max_file=20), ["file is 30 lines (limit 20): split it "
                                                          "into files with one purpose each, "
                                                          "or mark a table"])
        self.assertEqual(problems_of("// check-sizes: table: data\n" + body, max_file=20), [])


class PythonFunctions(unittest.TestCase):
    def test_nested_functions_count_in_the_enclosing_one_with_its_decorators(self):
        source = """
            @decorator
            def outer():
                def inner():
                    return 1
                return inner()
            """
        self.assertEqual(problems_of(source, suffix=".py", max_function=4),
                         ["function outer is 5 lines (limit 4)"])


if __name__ == "__main__":
    unittest.main()
